-- workflow_read: one workflow run: its hash, its step records, its parked steps.
-- KEYS: run
-- ARGV: prefix id
-- Returns: (fields[] steps[] parks[])
-- fields, steps, parks: HGETALL of the run's hash, steps and park hashes
-- (empty fields: no such run).
-- Replays: a read.
-- maxmemory: reads only: answers as ever while Redis is full.
-- @include lib/workflows/run-state.lua

local id = ARGV[2]
return {
  redis.call('HGETALL', KEYS[1]),
  redis.call('HGETALL', wf_key('steps', id)),
  redis.call('HGETALL', wf_key('park', id)),
}
