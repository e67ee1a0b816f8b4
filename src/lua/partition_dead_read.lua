-- partition_dead_read: the first entries of an ordered job's dead set
-- (`o:NAME:dead`, lib/ordered/ack-ids.lua) in a partition a migration moves
-- out of (migratePartitions): each is adopted into its id's partition in the
-- new layout (partition_adopt.lua), then removed here
-- (partition_dead_remove.lua), so the first entries are always the next
-- ones to move. Reads only.
-- KEYS: dead
-- ARGV: prefix count
-- Returns: [entry score]
-- dead: P.."o:NAME:dead"; count: how many, oldest first (scored by
-- failed_at). entry: the dead entry as stored; score: its score as stored.
-- Replays: it writes nothing, so a second run answers what Redis holds then.
-- maxmemory: reads only: answers as ever while Redis is full.
local count = tonumber(ARGV[2])
return redis.call('ZRANGE', KEYS[1], 0, count - 1, 'WITHSCORES')
