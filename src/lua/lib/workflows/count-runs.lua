-- The runs of each workflow by status, for stats.lua (run-state.lua keeps the counts).
-- ARGV from `at`: n, then n workflow names. Returns, per name, its counts in
-- the order running sleeping waiting completed failed cancelled.
-- @include lib/common/prefix-keys.lua
local function workflow_counts(at)
  local out, n = {}, tonumber(ARGV[at])
  for k = 1, n do
    local name = ARGV[at + k]
    local fields = {}
    for s, status in ipairs({ 'running', 'sleeping', 'waiting', 'completed', 'failed', 'cancelled' }) do
      fields[s] = status .. ':' .. name
    end
    local counts = redis.call('HMGET', P .. 'wf:counts', unpack(fields))
    for s = 1, #counts do counts[s] = tonumber(counts[s]) or 0 end
    out[k] = counts
  end
  return out
end
