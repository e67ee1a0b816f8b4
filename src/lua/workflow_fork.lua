-- workflow_fork: creates a run of a workflow and version whose first steps
-- are copies of another run's completed step records (written as that run
-- stored them), due at once, unless a run with that id exists; answers the
-- name of the run the id holds (the caller refuses an id taken by another
-- workflow), as workflow_start does.
-- KEYS: run
-- ARGV: prefix id name input version source records[](step record)
-- Returns: text
-- run: P..'wf:run:'..id. input: the input JSON, stored as sent. source: the
-- run it was forked from (kept in `forked`). records: the completed step
-- records copied, each as stored.
-- Replays: idempotent by id: a rerun finds the run and changes nothing.
-- maxmemory: no flag: while Redis is full it is refused with REDIS_FULL before it writes anything,
-- as workflow_start.
-- @include lib/common/prefix-keys.lua
-- @include lib/workflows/run-state.lua

local id = ARGV[2]
local name = ARGV[3]
local input = ARGV[4]
local version = ARGV[5]
local source = ARGV[6]
local recordsAt = 7
local existing = redis.call('HGET', KEYS[1], 'name')
if existing then return existing end
local now = now_ms()
redis.call('HSET', KEYS[1], 'name', name, 'input', input, 'created', now, 'ikey', '2', 'version', version,
  'forked', source)
for k = recordsAt + 1, recordsAt + 2 * tonumber(ARGV[recordsAt]), 2 do wf_records.write(id, ARGV[k], ARGV[k + 1]) end
wf_set_status(id, 'running', now)
redis.call('ZADD', wf_key('all'), now, id)
redis.call('ZADD', wf_key('due'), now, id)
return name
