-- partitions: stores the partition count of a key space the first time a
-- partitioned tickq starts on it, and answers what is stored, so a
-- deployment with another count is refused before it writes (it would put
-- each job in another partition than the one its jid, ordered id or flow key
-- hashes to, and ticks would never see some partitions), and so is every
-- deployment while a migration moves the keys from one count to another.
-- KEYS: meta
-- ARGV: prefix count
-- Returns: text
-- meta: the user's prefix.."partitions" (no hash tag: one key, any slot);
-- count: the partition count of the caller. Returns the value stored after
-- the call: the caller's count when none was stored, another count, or
-- "N>M id" while a migration from N to M partitions is under way or was cut
-- (partition_move_begin.lua), which the caller refuses.
-- Replays: SET NX stores once; a second run finds the value the first stored
-- and answers it, as the first did.
-- maxmemory: no flag: while Redis is full it is refused with REDIS_FULL before it writes anything
-- (only the first start of a key space writes).
local count = ARGV[2]

redis.call('SET', KEYS[1], count, 'NX')
return redis.call('GET', KEYS[1])
