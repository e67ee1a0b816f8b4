-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- ARGV's one rule for a part of variable length (src/protocol/define.ts):
-- its count, then its items. A part left out at the end reads as 0 items.
-- Returns the items from ARGV[at + 1] on and the index just past them.
local function counted_args(at)
  local items = {}
  for k = 1, tonumber(ARGV[at]) or 0 do items[k] = ARGV[at + k] end
  return items, at + 1 + #items
end
