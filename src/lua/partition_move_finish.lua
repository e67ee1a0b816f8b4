-- partition_move_finish: stores the new partition count once migratePartitions
-- has moved every job, replacing the mark partition_move_begin.lua set, so
-- tickqs with the new count start (and those with the old one are refused).
-- KEYS: meta
-- ARGV: prefix mark to
-- Returns: text
-- meta: the user's prefix.."partitions"; mark: "from>to id" as begin stored
-- it; to: the new count. Returns the value stored after the call: `to` once
-- done; anything else means another migration's mark, left as it is.
-- Replays: a second run finds `to`, not the mark, changes nothing and answers
-- `to` again.
-- maxmemory: no flag: while Redis is full it is refused with REDIS_FULL before it writes anything;
-- the migration is resumed by running it again.
local mark = ARGV[2]
local to = ARGV[3]

if redis.call('GET', KEYS[1]) == mark then
  redis.call('SET', KEYS[1], to)
end
return redis.call('GET', KEYS[1]) or ''
