#!lua flags=allow-oom
-- workflow_cancel: cancels a run that has not ended: no step of it starts
-- again, its parked steps leave their event sets and the due set, and the
-- tick that holds it (while its lease lives) is told in its next workflow call, to abort
-- the running steps' signals. An ended run is left as it is.
-- KEYS: run
-- ARGV: prefix id
-- Returns: text
-- run: P..'wf:run:'..id. Returns the run's status after the call ('' when there is no run).
-- Replays: a rerun finds the run cancelled and changes nothing (no second note).
-- maxmemory: runs (allow-oom): a cancel lands; it rewrites the run's status and adds at most one
-- note for the holding tick.
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
if owner then
  -- A dead tick never reads its note, a live one within a second (its pass
  -- polls): the note goes only to a live tick and expires a minute past its lease.
  local ttl = redis.call('PTTL', P .. 'tick:' .. owner)
  if ttl > 0 then
    local note = wf_key('cancel', owner)
    redis.call('SADD', note, id)
    redis.call('PEXPIRE', note, ttl + 60000)
  end
end
wf_release(id, nil)
wf_set_status(id, 'cancelled', now)
return 'cancelled'
