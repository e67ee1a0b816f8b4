#!lua flags=allow-oom
-- workflow_event: an event arrives. It takes the next event sequence and is
-- kept for `retentionMs` (lib/workflows/kept-events.lua), so a run started
-- before it whose wait parks later still takes it; the runs parked on a wait
-- for this event and match when it arrives are its waits, fixed in this one
-- script (their set becomes the event's delivery,
-- lib/workflows/deliver-events.lua), so no run waiting when it arrives
-- misses it; the first chunk of them is resolved here, the rest by
-- workflow_deliver.lua calls (or ticks, if the sender stops), a chunk a call.
-- KEYS: waits
-- ARGV: prefix token tokenMs event match data id retentionMs
-- Returns: (found left)
-- waits: the set of (run, step) waiting for this event and match
-- (lib/workflows/run-state.lua, wf_wait_key). token: the call's token, also
-- the delivery's name. data: JSON, stored as sent. id: the sender's event
-- id ("" for none): an id seen within the retention (or the call window, if
-- longer) makes the event a no-op answering 0 (`wf:eid:LEN:EVENTID`).
-- retentionMs: how long the event is kept (0: not kept).
-- found: the waits it found; left: how many of them are not yet resolved.
-- Replays: the call token (drawn per call) is set NX for the call window;
-- a replay answers the first run's count and how many are left now, and
-- records nothing more: no second sequence, no second kept copy. A resend
-- with a new token but the same id finds the id and records nothing.
-- maxmemory: runs (allow-oom): an event reaches the runs already waiting for it: it moves their
-- set into its delivery and adds its data (at most the step-result limit) to the first chunk of waits;
-- it keeps one copy of the data per partition for the retention (each event drops the expired head of
-- its log first).
-- @include lib/common/prefix-keys.lua
-- @include lib/workflows/deliver-events.lua
-- @include lib/workflows/kept-events.lua
-- @include lib/workflows/run-state.lua

local token = ARGV[2]
local tokenMs = tonumber(ARGV[3])
local event = ARGV[4]
local match = ARGV[5]
local data = ARGV[6]
local id = ARGV[7]
local retentionMs = tonumber(ARGV[8])

local token_key = P .. 'wf:evt:' .. token
if not redis.call('SET', token_key, '', 'NX', 'PX', tokenMs) then
  return { tonumber(redis.call('GET', token_key)), redis.call('SCARD', wf_event_key(token) .. ':w') }
end
if id ~= '' then
  local id_key = wf_key('eid:' .. #event .. ':' .. event .. id)
  if not redis.call('SET', id_key, '', 'NX', 'PX', math.max(retentionMs, tokenMs)) then
    redis.call('SET', token_key, 0, 'PX', tokenMs)
    return { 0, 0 }
  end
end
local now = now_ms()
local seq = wf_kept.record(event, match, data, retentionMs, now)
local found = wf_record_event(KEYS[1], token, event, match, data, seq, now)
redis.call('SET', token_key, found, 'PX', tokenMs)
if found == 0 then return { 0, 0 } end
return { found, wf_deliver(token, now) }
