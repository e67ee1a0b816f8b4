-- flow_stats: per job name, what flow control holds back, in one round trip.
-- KEYS: [1] P.."queues" (unread: it routes the call to the prefix's
--       Cluster slot; every key is built from the prefix and the names)
-- ARGV: [1] prefix  [2] n, then n job names, %XX-escaped as flow
--       descriptors write them (lib/flow.lua)
-- Returns: per name, {slots held, jobs parked on a busy key, jobs deferred
--          by a rate limit and not yet due}
-- Replays: reads only (it prunes deferral records already due, which no
--          reader counts).
-- @include lib/common.lua

local now = now_ms()
local out = {}
for k = 1, tonumber(ARGV[2]) do
  local name = ARGV[2 + k]
  local deferred = P .. 'flow:deferred:' .. name
  redis.call('ZREMRANGEBYSCORE', deferred, '-inf', now)
  out[k] = {
    tonumber(redis.call('HGET', P .. 'flow:locks', name)) or 0,
    tonumber(redis.call('HGET', P .. 'flow:waiting', name)) or 0,
    redis.call('ZCARD', deferred),
  }
end
return out
