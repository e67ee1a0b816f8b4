#!lua flags=allow-oom
-- workflow_event: an event arrives: every run parked on a wait for this
-- event and match has that step resolved with the event's data and is due
-- at once, in this one script, so no run waiting when it arrives misses it.
-- An event no run waits for is not kept.
-- KEYS: waits
-- ARGV: prefix token tokenMs event match data
-- Returns: number
-- waits: the set of (run, step) waiting for this event and match
-- (lib/workflows/run-state.lua, wf_wait_key). data: JSON, stored as sent.
-- Returns how many waits it resolved.
-- Replays: the call token (drawn per call) is set NX for the call window;
-- a replay answers the first run's count and resolves nothing more.
-- maxmemory: runs (allow-oom): an event reaches the runs already waiting for it: it adds its call
-- token and its data (at most the step-result limit) to each of those waits.
-- @include lib/common/prefix-keys.lua
-- @include lib/workflows/run-state.lua

local token = ARGV[2]
local tokenMs = ARGV[3]
local event = ARGV[4]
local match = ARGV[5]
local data = ARGV[6]

local token_key = P .. 'wf:evt:' .. token
if not redis.call('SET', token_key, '', 'NX', 'PX', tokenMs) then
  return tonumber(redis.call('GET', token_key))
end
local now = now_ms()
local resolved = 0
for _, member in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local ref = cjson.decode(member)
  local id, step = ref[1], ref[2]
  local text = redis.call('HGET', wf_key('park', id), step)
  local parked = text and cjson.decode(text)
  if parked and parked.k == 'w' and parked.e == event and parked.m == match then
    wf_resolve_parked(id, step, parked, data, now)
    resolved = resolved + 1
    local status = redis.call('HGET', wf_key('run', id), 'status')
    -- A held run (status running) finds the step resolved when it parks (commit-runs.lua).
    if status == 'waiting' or status == 'sleeping' then
      wf_set_status(id, 'running', now)
      redis.call('ZADD', wf_key('due'), now, id)
    end
  else
    redis.call('SREM', KEYS[1], member)
  end
end
redis.call('SET', token_key, resolved, 'PX', tokenMs)
return resolved
