-- partition_move_begin: marks a key space as moving from one partition count
-- to another before migratePartitions moves a job, so every tickq that starts
-- meanwhile, with the old count or the new, is refused (partitions.lua
-- answers the mark) instead of running on half-moved keys.
-- KEYS: meta
-- ARGV: prefix from to id
-- Returns: text
-- meta: the user's prefix.."partitions"; from: the count to move from, 0 for
-- the one stored (1 when none is); to: the count to move to; id: names this
-- migration's sets of adopted jids, used only when the mark is new.
-- Returns the value stored after the call: "from>to id" once marked; the
-- stored count when it is `to` already or not `from` (nothing marked); the
-- mark of a migration under way (nothing changed).
-- Replays: a second run finds its own mark and answers it, with the first
-- run's id, so a migration run again after a cut goes on with the same sets.
-- maxmemory: no flag: while Redis is full it is refused with REDIS_FULL before it writes anything;
-- the migration does not start.
local from = tonumber(ARGV[2])
local to = tonumber(ARGV[3])
local id = ARGV[4]

local stored = redis.call('GET', KEYS[1]) or tostring(from > 0 and from or 1)
local count = tonumber(stored)
if count and count ~= to and (from == 0 or from == count) then
  stored = count .. '>' .. to .. ' ' .. id
  redis.call('SET', KEYS[1], stored)
end
return stored
