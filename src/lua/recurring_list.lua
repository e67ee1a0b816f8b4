-- recurring_list: what Redis holds of the recurring jobs, for tq.schedules().
-- KEYS: due
-- ARGV: prefix
-- Returns: (due[name slot] specs[name spec] fps[name fps] lasts[name slot] orphans[name since] paused[])
-- due: P.."schedules:due". Each list is flat name, value pairs: the next slot
-- ms, the spec JSON, "timing fp spec fp", the last slot ms, orphaned since ms;
-- paused: the names tq.schedules.pause paused.
-- Replays: reads only.
-- maxmemory: reads only: answers as ever while Redis is full.
-- @include lib/common/prefix-keys.lua

local S = P .. 'schedules:'
return {
  redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES'),
  redis.call('HGETALL', S .. 'spec'),
  redis.call('HGETALL', S .. 'fp'),
  redis.call('HGETALL', S .. 'last'),
  redis.call('HGETALL', S .. 'orphans'),
  redis.call('SMEMBERS', S .. 'paused'),
}
