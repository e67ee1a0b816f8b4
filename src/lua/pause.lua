-- pause: pauses or resumes a queue. Fetch skips a queue in the `paused`
-- set (lib/tick/fetch-jobs.lua); its jobs stay where they are, and scheduled and
-- retry jobs still join it when due.
-- KEYS: paused
-- ARGV: prefix queue paused
-- Returns: flag
-- paused: P.."paused"; paused (ARGV): 1 to pause, 0 to resume.
-- Returns 1 if the queue is paused after the call, else 0.
-- Replays: adding or removing one member of a set: a second run finds it
-- done, changes nothing and answers the same.
-- maxmemory: no flag: while Redis is full a pause (SADD) is refused with REDIS_FULL, nothing
-- written; a resume (SREM) runs.
local queue = ARGV[2]
local paused = ARGV[3] == '1'

if paused then
  redis.call('SADD', KEYS[1], queue)
  return 1
end
redis.call('SREM', KEYS[1], queue)
return 0
