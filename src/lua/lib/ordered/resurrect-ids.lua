-- Ordered resurrect pass, run by lib/tick/resurrect-dead-ticks.lua for each dead tick: the
-- ids it held (`oinproc:TICK`) go back to `ready` with every payload,
-- merged with what arrived during the run, keeping their place. The id the
-- tick ran alone (`alone`, "o" then its hash field) counts a resurrection
-- (the poison guard), an id whose bytes are not UTF-8 too (the record names it as read: no format
-- changes, so a record an older tick wrote reads alike, and an older resurrector misses only that
-- id, as before) unless the tick holds an id stored as the record names it (a well-formed id holding
-- U+FFFD: that one ran; a read, HEXISTS, so a replay, which finds the fields gone, does nothing more);
-- every id becomes a suspect, run alone next time
-- (lib/tick/resurrect-dead-ticks.lua says why). A run marked cancelled is
-- not put back: it ends cancelled (lib/ordered/cancel-ids.lua), with its
-- payloads recorded, as the tick's ack would have settled it. Acks remove what they settle
-- from the hash, so whatever is left there the dead tick still held. One
-- script, moving only what it finds: run twice, the second finds nothing.
-- @include lib/common/prefix-keys.lua
-- @include lib/ordered/state.lua
-- @include lib/cancel/read-cancel-marks.lua
-- @include lib/ordered/cancel-ids.lua
-- @include lib/common/utf8-as-read.lua

-- Returns the budget left, how many ids the dead tick still holds, and how
-- many runs it recorded cancelled (not resurrected).
local function resurrect_ordered(dead_tick, budget, alone)
  -- A dead tick fetches nothing more; out of `oticks` at once (lib/ordered/state.lua),
  -- while it still holds ids enqueue only reads more.
  redis.call('SREM', P .. 'oticks', dead_tick)
  local key = oinproc_key(dead_tick)
  if redis.call('EXISTS', key) == 0 then return budget, 0, 0 end
  local held = redis.call('HGETALL', key)
  local marks = cancel_marks(dead_tick)
  -- Whether `alone` names the run of `field` ("NAME ID"): as stored, or as the client read an id whose
  -- bytes are not UTF-8 (its step wrote the id with U+FFFD: src/ordered/in-tick.ts soloMarker). Only a
  -- record holding U+FFFD pays the decoding. A field stored as the record names it is the run: then
  -- no other id that reads alike is counted. (Locals here: the entry scripts' main chunks are full.)
  local as_read = alone and string.byte(alone) == 111 and string.find(alone, '\239\191\189', 1, true) ~= nil
  if as_read and redis.call('HEXISTS', key, string.sub(alone, 2)) == 1 then as_read = false end
  local function ran_alone(field)
    if not alone then return false end
    if alone == 'o' .. field then return true end
    return as_read and alone == 'o' .. utf8_as_read(field)
  end
  local cancelled = 0
  for j = 1, #held, 2 do
    if budget <= 0 then break end
    local field, token = held[j], held[j + 1]
    local space = string.find(field, ' ', 1, true)
    local name, id = string.sub(field, 1, space - 1), string.sub(field, space + 1)
    local fence = string.match(token, '^%S+ (%S+) ')
    if take_ordered_mark(marks, name, fence, id) then
      settle_ordered_cancelled(dead_tick, name, id, fence, now_ms())
      cancelled = cancelled + 1
    else
      requeue(name, id, token_due(token), ran_alone(field) and 'resurrections' or nil, capped_run.take(name, id, true))
      redis.call('HSET', okey(name, 'suspects'), id, 1)
      redis.call('SREM', okey(name, 'held'), id)
      redis.call('DECRBY', okey(name, 'running'), 1)
      redis.call('HDEL', key, field)
    end
    budget = budget - 1
  end
  return budget, redis.call('HLEN', key), cancelled
end
