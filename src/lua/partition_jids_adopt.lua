-- partition_jids_adopt: remembers in one partition of the new layout the
-- jids a partition of the old one remembered (partition_jids_read.lua), each
-- until the later of the times either layout would forget it, so a caller
-- retrying an enqueue across a migration never doubles its job.
-- migratePartitions sends every jid to every partition of the new layout: once
-- a job ran, its jid no longer says which key routed it, and a retried
-- enqueue goes where its key routes it.
-- KEYS: ids
-- ARGV: prefix jids[](jid untilMs)
-- Returns: number
-- ids: P.."jids", the sorted set enqueue.lua reads (score: when a jid may be
-- forgotten). Returns how many of the jids it remembers (those not forgotten
-- already), whether or not they were known.
-- Replays: a jid is kept until the later time of the two, so a second run
-- (or a migration run again) changes nothing.
-- maxmemory: no flag: while Redis is full it is refused with REDIS_FULL before it writes anything;
-- the migration stops there, before it stores the new count: run it again once memory is freed.
-- @include lib/common/prefix-keys.lua
local jidsAt = 2
local now = now_ms()
local longest = 0
local remembered = 0
for i = jidsAt + 1, jidsAt + 2 * tonumber(ARGV[jidsAt]), 2 do
  local jid, until_ms = ARGV[i], tonumber(ARGV[i + 1])
  if until_ms > now then
    local known = tonumber(redis.call('ZSCORE', KEYS[1], jid))
    if not known or known < until_ms then
      redis.call('ZADD', KEYS[1], ARGV[i + 1], jid)
    end
    remembered = remembered + 1
    longest = math.max(longest, until_ms - now)
  end
end
if longest > 0 and redis.call('PTTL', KEYS[1]) < longest then redis.call('PEXPIRE', KEYS[1], longest) end
return remembered
