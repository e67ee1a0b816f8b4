-- The index just past recurring.lua's `due` part that starts at ARGV[i]:
-- its count, then per schedule name, specFp, slot, next, and a counted
-- section of claimed slots of three values each (slot, queue, job).
local function due_args_end(i)
  local stop = i + 1
  for _ = 1, tonumber(ARGV[i]) do stop = stop + 5 + 3 * tonumber(ARGV[stop + 4]) end
  return stop
end
