-- ordered_stats: the sizes of each ordered job, read in one round trip.
-- KEYS: [1] P.."ordered" (unread: it routes the call to the prefix's
--       Cluster slot; every key is built from the prefix and the names)
-- ARGV: [1] prefix  [2] n, then n ordered names
-- Returns: per name, {ids waiting, ids running, payloads waiting, dead}.
--          Ids waiting count those ready or backing off, and those that
--          also run now with payloads waiting behind the run.
-- Replays: reads only.
-- @include lib/common.lua
-- @include lib/ordered-state.lua

local out = {}
for k = 1, tonumber(ARGV[2]) do
  local name = ARGV[2 + k]
  out[k] = {
    redis.call('ZCARD', okey(name, 'ready')) + redis.call('ZCARD', okey(name, 'later')),
    tonumber(redis.call('GET', okey(name, 'running'))) or 0,
    tonumber(redis.call('GET', okey(name, 'payloads'))) or 0,
    redis.call('ZCARD', okey(name, 'dead')),
  }
end
return out
