-- recurring_list: what Redis holds of the recurring jobs, for tq.schedules().
-- KEYS: [1] P.."schedules:due"
-- ARGV: [1] prefix
-- Returns: {{name, next slot ms, ...}, {name, spec JSON, ...},
--           {name, "timing fp spec fp", ...}, {name, last slot ms, ...},
--           {name, orphaned since ms, ...}}
-- Replays: reads only.
-- @include lib/common/prefix-keys.lua

local S = P .. 'schedules:'
return {
  redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES'),
  redis.call('HGETALL', S .. 'spec'),
  redis.call('HGETALL', S .. 'fp'),
  redis.call('HGETALL', S .. 'last'),
  redis.call('HGETALL', S .. 'orphans'),
}
