-- workflow_read: one workflow run: its hash, its step records, its parked steps,
-- and when it is next due (a failed step's next try).
-- KEYS: run
-- ARGV: prefix id
-- Returns: (fields[] steps[] parks[] due)
-- fields, steps, parks: HGETALL of the run's hash, steps and park hashes
-- (empty fields: no such run); due: its score in wf:due (ms), "" when it is
-- not due by time (held by a tick, parked, ended).
-- Replays: a read.
-- maxmemory: reads only: answers as ever while Redis is full.
-- @include lib/workflows/run-state.lua

local id = ARGV[2]
return {
  redis.call('HGETALL', KEYS[1]),
  redis.call('HGETALL', wf_key('steps', id)),
  redis.call('HGETALL', wf_key('park', id)),
  redis.call('ZSCORE', wf_key('due'), id) or '',
}
