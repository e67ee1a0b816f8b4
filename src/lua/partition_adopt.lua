-- partition_adopt: puts a job moved out of the old partition layout into its
-- partition in the new one (migratePartitions), as stored, byte for byte: a
-- queued job into the partition's schedule, due at once in its old order (the schedule pass
-- queues it as any due job, with its priority and group), a scheduled, retry
-- or dead job into the same set with the same score.
-- KEYS: adopted into
-- ARGV: prefix jid score job keepMs
-- Returns: flag
-- adopted: P.."adopted:"..id, the set of the jids one migration moved in
-- (its id from partition_move_begin.lua, so a later migration back into this
-- partition is not taken for a replay), kept keepMs after the last move;
-- into: P.."schedule", P.."retry" or P.."dead"; score: its score there.
-- Returns 1.
-- Replays: the jid is in `adopted` after the first run, so a second run (or a
-- migration run again after it stopped between this call and the removal at
-- the source) adds nothing, even when a tick moved the job on meanwhile.
-- maxmemory: no flag: while Redis is full it is refused with REDIS_FULL before it writes anything;
-- a migration stops there and resumes where it stopped.
local jid = ARGV[2]
local score = ARGV[3]
local job = ARGV[4]
local keepMs = ARGV[5]

if redis.call('SADD', KEYS[1], jid) == 1 then
  redis.call('ZADD', KEYS[2], score, job)
end
redis.call('PEXPIRE', KEYS[1], keepMs)
return 1
