#!lua flags=allow-oom
-- workflow_cancel: cancels a run that has not ended: no step of it starts
-- again, its parked steps leave their event sets and the due set, and the
-- tick that holds it (while its lease lives) is marked, as a running job's
-- tick is (lib/cancel/read-cancel-marks.lua): `w FENCE ID` in its cancel
-- marks, which its next extend or step hands it and the extend after says
-- it heard. Until then a step of the run may still start (a commit's reply
-- on its way back lets the next one start), so the caller asks again until
-- the answer is no longer 'cancelling'. An ended run is left as it is.
-- KEYS: run
-- ARGV: prefix id
-- Returns: text
-- run: P..'wf:run:'..id. Returns '' when there is no run; 'cancelling'
-- while the tick that held the run has not said it heard of the cancel (the
-- run hash's `cancelling` field names that tick and fence); else the run's
-- status ('cancelled', or the status it had already ended in). A tick whose
-- lease is gone starts nothing more, so its run answers 'cancelled'.
-- The tick also gets the note `wf:cancel:TICK`, read by its next workflow
-- call: a tick of a version that reads no `w` mark aborts the run by it.
-- Replays: a rerun finds the run cancelled and answers what the holder's
-- mark says now (no second note, no second mark); the holder is forgotten
-- once it heard, so every later call answers 'cancelled'.
-- maxmemory: runs (allow-oom): a cancel lands; it rewrites the run's status and adds at most one
-- note and one mark for the holding tick.
-- @include lib/common/prefix-keys.lua
-- @include lib/cancel/read-cancel-marks.lua
-- @include lib/workflows/run-state.lua

local id = ARGV[2]
-- The run's mark among its holder's cancel marks (src/cancel/errors.ts, workflowCancelKey): no jid holds a space.
local function wf_cancel_mark(fence)
  return 'w ' .. fence .. ' ' .. id
end
local f = redis.call('HMGET', KEYS[1], 'status', 'owner', 'fence', 'cancelling')
local status, owner, fence, holder = f[1], f[2], f[3], f[4]
if not status then return '' end

-- 'cancelling' while `tick` holds the run with `fence` and has not said it heard.
local function holder_state(tick, fence)
  if redis.call('EXISTS', P .. 'tick:' .. tick) == 1 and
    redis.call('HGET', cancel_marks_key(tick), wf_cancel_mark(fence)) == '0' then
    return 'cancelling'
  end
  redis.call('HDEL', KEYS[1], 'cancelling')
  return 'cancelled'
end

if status == 'cancelled' and holder then
  local space = string.find(holder, ' ', 1, true)
  return holder_state(string.sub(holder, 1, space - 1), string.sub(holder, space + 1))
end
if WF_TERMINAL[status] then return status end
local now = now_ms()
wf_unpark_all(id)
redis.call('ZREM', wf_key('due'), id)
local live = owner and redis.call('PTTL', P .. 'tick:' .. owner) or -2
if live > 0 then
  local note = wf_key('cancel', owner)
  redis.call('SADD', note, id)
  redis.call('PEXPIRE', note, live + 60000)
  mark_cancelled(owner, wf_cancel_mark(fence))
  redis.call('HSET', KEYS[1], 'cancelling', owner .. ' ' .. fence)
end
wf_release(id, nil)
wf_set_status(id, 'cancelled', now)
if live > 0 then return 'cancelling' end
return 'cancelled'
