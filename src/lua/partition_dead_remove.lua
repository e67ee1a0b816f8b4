-- partition_dead_remove: takes one entry out of an ordered job's dead set in
-- a partition a migration moves out of, once the entry is adopted into the
-- new layout (partition_adopt.lua).
-- KEYS: dead
-- ARGV: prefix entry
-- Returns: flag
-- dead: P.."o:NAME:dead"; entry: the dead entry as stored. Returns 1 when it
-- was there, 0 when it was gone.
-- Replays: a second run (or a migration run again after this call's reply
-- was lost) finds the entry gone and answers 0, removing nothing else.
-- maxmemory: no flag: it only removes, so it runs while Redis is full.
local entry = ARGV[2]
return redis.call('ZREM', KEYS[1], entry)
