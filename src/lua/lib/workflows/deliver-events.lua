-- An event resolves its waits in chunks. Recording it (workflow_event.lua)
-- moves the set of waits for its (event, match) to a delivery of its own in
-- one RENAME, so the waits it found are fixed at that instant and a wait
-- parked after it is not among them; each later call (the sender's
-- workflow_deliver.lua, or any tick's claim once the delivery is 5 s old
-- and the sender seems to have stopped) then
-- takes WF_DELIVER_CHUNK of them with SPOP and resolves each still parked:
-- a wait is taken by one call only, and a replayed call takes the next
-- chunk, so none is resolved twice or left out. A wait whose timeout comes
-- while its event's delivery is pending gets the event's data: the event
-- came first. With kept events (kept-events.lua) a delivery only says "an
-- event came": the run's earliest wait on it takes the earliest kept event
-- its run has not taken, so two waits of one run take two events in the
-- order sent, whichever the delivery reaches first. Needs run-state.lua.
-- Keys: `wf:event:TOKEN` hash (e, m, d, s: event, match, data JSON, its sequence) and
-- `wf:event:TOKEN:w` set (its waits left, as the wait set held them),
-- `wf:events` zset (deliveries pending, by when recorded), and per (event,
-- match) `wf:pend:LEN:EVENTMATCH` set (its pending deliveries' tokens).
-- @include lib/common/prefix-keys.lua
-- @include lib/workflows/run-state.lua
-- @include lib/workflows/kept-events.lua

-- Waits one call resolves: the longest script stays a few ms however many runs wait (50: a kept
-- event costs each wait a floor read and a log search, and 100 took a call past 20 ms).
local WF_DELIVER_CHUNK = 50

local function wf_event_key(token)
  return P .. 'wf:event:' .. token
end

-- Length-prefixed, as wf_wait_key: no pair of event and match names another's.
local function wf_pending_key(event, match)
  return P .. 'wf:pend:' .. #event .. ':' .. event .. match
end

-- Moves the waits of (event, match) to the delivery `token`; returns how many it found.
local function wf_record_event(waits, token, event, match, data, seq, now)
  local found = redis.call('SCARD', waits)
  if found == 0 then return 0 end
  local key = wf_event_key(token)
  redis.call('RENAME', waits, key .. ':w')
  redis.call('HSET', key, 'e', event, 'm', match, 'd', data, 's', seq)
  redis.call('ZADD', wf_key('events'), now, token)
  redis.call('SADD', wf_pending_key(event, match), token)
  return found
end

-- The event `f` (e, m, d, s) reaches the wait `member` ('[id, step]'), if the run still parks it there.
-- The run's earliest wait on it takes the earliest event the run may take (this one, or one kept
-- before it whose delivery is behind); `member`, if that was another wait, waits on (kept-events.lua).
-- A delivery without `s` (recorded by a release before kept events) resolves `member` with its data.
local function wf_resolve_wait(member, f, now)
  local ref = cjson.decode(member)
  local id, step = ref[1], ref[2]
  local text = redis.call('HGET', wf_key('park', id), step)
  local parked = text and cjson.decode(text)
  if not (parked and parked.k == 'w' and parked.e == f[1] and parked.m == f[2]) then return end
  local s = tonumber(f[4])
  if not s then
    wf_kept.take(id, step, parked, nil, f[3], now)
    return wf_kept.wake(id, now)
  end
  local first_step, first = wf_kept.earliest_wait(id, f[1], f[2])
  local suffix = wf_kept.suffix(f[1], f[2])
  local floor, took = wf_kept.floor(id, suffix)
  local seq, data
  if floor then seq, data = wf_kept.first(suffix, floor, now) end
  if s > (floor or took) and (not seq or s < seq) then seq, data = s, f[3] end
  if seq then
    wf_kept.take(id, first_step, first, seq, data, now)
    wf_kept.wake(id, now)
  end
  if not seq or first_step ~= step then wf_kept.wait(id, step, parked, now) end
end

-- The delivery `token` has no wait left.
local function wf_end_delivery(token, event, match)
  redis.call('DEL', wf_event_key(token))
  redis.call('ZREM', wf_key('events'), token)
  redis.call('SREM', wf_pending_key(event, match), token)
end

-- Resolves up to WF_DELIVER_CHUNK waits of the delivery `token`; returns how many are left (0: it ended).
local function wf_deliver(token, now)
  local key = wf_event_key(token)
  local f = redis.call('HMGET', key, 'e', 'm', 'd', 's')
  if not f[1] then return 0 end
  for _, member in ipairs(redis.call('SPOP', key .. ':w', WF_DELIVER_CHUNK)) do
    wf_resolve_wait(member, f, now)
  end
  local left = redis.call('SCARD', key .. ':w')
  if left == 0 then wf_end_delivery(token, f[1], f[2]) end
  return left
end

-- A chunk of the oldest delivery pending for WF_DELIVER_ORPHAN_MS (a tick's share, for a sender that
-- stopped mid-way: a live one ends its own sooner, and a tick's call stays as short as its own work).
local WF_DELIVER_ORPHAN_MS = 5000
local function wf_deliver_pending(now)
  local oldest = redis.call('ZRANGEBYSCORE', wf_key('events'), '-inf', now - WF_DELIVER_ORPHAN_MS, 'LIMIT', 0, 1)[1]
  if oldest then wf_deliver(oldest, now) end
end

-- The data and sequence of a pending delivery that holds the wait `member` of (event, match), taken out
-- of it; nil if none.
local function wf_pending_data(member, event, match)
  local pending = wf_pending_key(event, match)
  if redis.call('EXISTS', pending) == 0 then return nil end
  for _, token in ipairs(redis.call('SMEMBERS', pending)) do
    local key = wf_event_key(token)
    if redis.call('SREM', key .. ':w', member) == 1 then
      local f = redis.call('HMGET', key, 'd', 's')
      if redis.call('EXISTS', key .. ':w') == 0 then wf_end_delivery(token, event, match) end
      return f[1], tonumber(f[2])
    end
  end
  return nil
end
