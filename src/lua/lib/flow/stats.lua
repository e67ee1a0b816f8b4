-- Flow control's sizes per job name, for stats.lua: slots held, jobs parked
-- on a busy key, jobs deferred by a rate limit and not yet due. Names are
-- %XX-escaped as flow descriptors write them (lib/flow/flow.lua).
-- ARGV from `at`: n, then n job names. Returns the sizes and the index past them.
-- Pruning deferral records already due changes nothing a reader counts.
-- @include lib/common/prefix-keys.lua
local function flow_sizes(at, now)
  local out, n = {}, tonumber(ARGV[at])
  for k = 1, n do
    local name = ARGV[at + k]
    local deferred = P .. 'flow:deferred:' .. name
    redis.call('ZREMRANGEBYSCORE', deferred, '-inf', now)
    out[k] = {
      tonumber(redis.call('HGET', P .. 'flow:locks', name)) or 0,
      tonumber(redis.call('HGET', P .. 'flow:waiting', name)) or 0,
      redis.call('ZCARD', deferred),
    }
  end
  return out, at + n + 1
end
