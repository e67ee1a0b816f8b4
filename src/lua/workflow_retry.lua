#!lua flags=allow-oom
-- workflow_retry: resumes a failed or cancelled run at the step that ended
-- it: every completed step record stays (their functions do not run again),
-- the records of failed tries go (the step starts with fresh tries), and the
-- run is running and due at once, its error and end cleared. A run live for
-- any other reason, or completed, is left as it is.
-- KEYS: run
-- ARGV: prefix id token
-- Returns: (outcome status)
-- run: P..'wf:run:'..id. token: this retry's call token, kept in the run's
-- `retry` field. outcome: 'resumed' (by this call), 'again' (live since an
-- earlier retry: nothing to resume), 'live' (live, never retried: refused),
-- 'completed' (refused), 'cancelling' (cancelled while the tick that held it
-- has not heard: refused for now), '' (no run); status: the run's status after.
-- Replays: a rerun finds its own token in `retry` and answers 'resumed' with
-- the run's status, acting on nothing; a later retry of the same ended attempt
-- finds the run live since a retry and answers 'again'.
-- maxmemory: runs (allow-oom): it deletes failed tries' records and rewrites the run's few
-- fields; what it adds (a due entry, the token) is bounded by the run.
-- @include lib/common/prefix-keys.lua
-- @include lib/workflows/run-state.lua

local id = ARGV[2]
local token = ARGV[3]
local f = redis.call('HMGET', KEYS[1], 'status', 'retry', 'cancelling', 'owner')
local status, retried, cancelling, owner = f[1], f[2], f[3], f[4]
if not status then return { '', '' } end
if retried == token then return { 'resumed', status } end
if status == 'completed' then return { 'completed', status } end
if not WF_TERMINAL[status] then return { retried and 'again' or 'live', status } end
if cancelling then
  local holder = string.match(cancelling, '^(%S+) ')
  if holder and redis.call('EXISTS', P .. 'tick:' .. holder) == 1 then return { 'cancelling', status } end
end

-- Failed tries' records go: the step that ended the run starts again at try 1.
local steps = wf_key('steps', id)
local records = redis.call('HGETALL', steps)
for k = 1, #records, 2 do
  if not string.find(string.sub(records[k + 1], 1, 256), '"status":"completed"', 1, true) then
    redis.call('HDEL', steps, records[k])
    redis.call('HDEL', KEYS[1], 'cut:' .. records[k])
  end
end
local now = now_ms()
redis.call('HDEL', KEYS[1], 'error', 'output', 'ended', 'cancelling')
redis.call('ZREM', wf_key('ended'), id)
if owner then wf_release(id, nil) end
wf_set_status(id, 'running', now)
redis.call('ZADD', wf_key('due'), now, id)
redis.call('HSET', KEYS[1], 'retry', token)
redis.call('HINCRBY', KEYS[1], 'retries', 1)
return { 'resumed', 'running' }
