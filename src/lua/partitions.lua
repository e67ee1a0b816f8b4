-- partitions: stores the partition count of a key space the first time a
-- partitioned tickq starts on it, and answers the count stored, so a
-- deployment with another count is refused before it writes (it would put
-- each job in another partition than the one its jid, ordered id or flow key
-- hashes to, and ticks would never see some partitions).
-- KEYS: meta
-- ARGV: prefix count
-- Returns: number
-- meta: the user's prefix.."partitions" (no hash tag: one key, any slot);
-- count: the partition count of the caller. Returns the stored count after
-- the call: the caller's when none was stored.
-- Replays: SET NX stores once; a second run finds the count the first stored
-- and answers it, as the first did.
local count = ARGV[2]

redis.call('SET', KEYS[1], count, 'NX')
return tonumber(redis.call('GET', KEYS[1])) or -1
