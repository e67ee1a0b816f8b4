-- workflow_cancel: cancels a run that has not ended: no step of it starts
-- again, its parked steps leave their event sets and the due set, and the
-- tick that holds it (if any) is told in its next workflow call, to abort
-- the running steps' signals. An ended run is left as it is.
-- KEYS: run
-- ARGV: prefix id
-- Returns: text
-- run: P..'wf:run:'..id. Returns the run's status after the call ('' when there is no run).
-- Replays: a rerun finds the run cancelled and changes nothing.
-- @include lib/common/prefix-keys.lua
-- @include lib/workflows/run-state.lua

local id = ARGV[2]
local f = redis.call('HMGET', KEYS[1], 'status', 'owner')
local status, owner = f[1], f[2]
if not status then return '' end
if WF_TERMINAL[status] then return status end
local now = now_ms()
wf_unpark_all(id)
redis.call('ZREM', wf_key('due'), id)
if owner then redis.call('SADD', wf_key('cancel', owner), id) end
wf_release(id, nil)
wf_set_status(id, 'cancelled', now)
return 'cancelled'
