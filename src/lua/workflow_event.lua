#!lua flags=allow-oom
-- workflow_event: an event arrives: the runs parked on a wait for this event
-- and match when it does are its waits, fixed in this one script (their set
-- becomes the event's delivery, lib/workflows/deliver-events.lua), so no run
-- waiting when it arrives misses it; the first chunk of them is resolved
-- here, the rest by workflow_deliver.lua calls (or ticks, if the sender
-- stops), a chunk a call. An event no run waits for is not kept.
-- KEYS: waits
-- ARGV: prefix token tokenMs event match data
-- Returns: (found left)
-- waits: the set of (run, step) waiting for this event and match
-- (lib/workflows/run-state.lua, wf_wait_key). token: the call's token, also
-- the delivery's name. data: JSON, stored as sent.
-- found: the waits it found; left: how many of them are not yet resolved.
-- Replays: the call token (drawn per call) is set NX for the call window;
-- a replay answers the first run's count and how many are left now, and
-- records nothing more.
-- maxmemory: runs (allow-oom): an event reaches the runs already waiting for it: it moves their
-- set into its delivery and adds its data (at most the step-result limit) to the first chunk of waits.
-- @include lib/common/prefix-keys.lua
-- @include lib/workflows/deliver-events.lua

local token = ARGV[2]
local tokenMs = ARGV[3]
local event = ARGV[4]
local match = ARGV[5]
local data = ARGV[6]

local token_key = P .. 'wf:evt:' .. token
if not redis.call('SET', token_key, '', 'NX', 'PX', tokenMs) then
  return { tonumber(redis.call('GET', token_key)), redis.call('SCARD', wf_event_key(token) .. ':w') }
end
local now = now_ms()
local found = wf_record_event(KEYS[1], token, event, match, data, now)
redis.call('SET', token_key, found, 'PX', tokenMs)
if found == 0 then return { 0, 0 } end
return { found, wf_deliver(token, now) }
