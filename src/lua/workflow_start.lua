-- workflow_start: creates a workflow run, due at once, unless a run with
-- that id exists; answers the name of the run the id holds (the caller
-- refuses an id taken by another workflow).
-- KEYS: run
-- ARGV: prefix id name input
-- Returns: text
-- run: P..'wf:run:'..id. input: the input JSON, stored as sent. The run's
-- `ikey` field, '2', says its steps' idempotency keys are length-prefixed
-- (src/workflows/idempotency-key.ts); a run stored without it keeps the first form.
-- Its `eseq` is the last event sequence when it starts: its waits take only
-- events sent after it (lib/workflows/kept-events.lua).
-- Replays: idempotent by id: a rerun finds the run and changes nothing.
-- No allow-oom: when Redis is full the first write is refused, nothing is written.
-- maxmemory: no flag: while Redis is full it is refused with REDIS_FULL before it writes anything,
-- as enqueue.
-- @include lib/common/prefix-keys.lua
-- @include lib/workflows/run-state.lua

local id = ARGV[2]
local name = ARGV[3]
local input = ARGV[4]
local existing = redis.call('HGET', KEYS[1], 'name')
if existing then return existing end
local now = now_ms()
local eseq = redis.call('GET', wf_key('eseq')) or '0'
redis.call('HSET', KEYS[1], 'name', name, 'input', input, 'created', now, 'ikey', '2', 'eseq', eseq)
wf_set_status(id, 'running', now)
redis.call('ZADD', wf_key('all'), now, id)
redis.call('ZADD', wf_key('due'), now, id)
return name
