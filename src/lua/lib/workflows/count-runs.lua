-- The runs of each workflow by status, for stats.lua (run-state.lua keeps the counts).
-- workflow_names(at): the n names at ARGV[at + 1 .. at + n] (ARGV[at] = n), or, when
-- `stored` is true, every name `wf:counts` holds a count for, sorted (a tickq that
-- declares no workflows, as the CLI's, still shows the stored ones).
-- workflow_counts(names): per name, its counts in the order running sleeping waiting
-- completed failed cancelled.
-- @include lib/common/prefix-keys.lua
local WF_COUNTED = { 'running', 'sleeping', 'waiting', 'completed', 'failed', 'cancelled' }

local function workflow_names(at, stored)
  local names = {}
  if not stored then
    for k = 1, tonumber(ARGV[at]) do names[k] = ARGV[at + k] end
    return names
  end
  local seen = {}
  for _, field in ipairs(redis.call('HKEYS', P .. 'wf:counts')) do
    local name = string.match(field, '^%a+:(.*)$')
    if name and not seen[name] then
      seen[name] = true
      names[#names + 1] = name
    end
  end
  table.sort(names)
  return names
end

local function workflow_counts(names)
  local out = {}
  for k, name in ipairs(names) do
    local fields = {}
    for s, status in ipairs(WF_COUNTED) do fields[s] = status .. ':' .. name end
    local counts = redis.call('HMGET', P .. 'wf:counts', unpack(fields))
    for s = 1, #counts do counts[s] = tonumber(counts[s]) or 0 end
    out[k] = counts
  end
  return out
end
