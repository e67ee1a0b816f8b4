-- ordered_cancel: cancels an ordered id (tq.jobs.cancelOrdered), where it
-- waits or runs (lib/ordered/cancel-ids.lua).
-- KEYS: ticks
-- ARGV: prefix token keepMs name id tick fence records
-- Returns: text
-- ticks: P.."ticks" (the registry, to find the tick holding the id).
-- tick, fence: '' to look for the id; a run found before ('TICK', 'FENCE')
-- to mark it or learn whether its tick heard.
-- records: '1' to have the reply carry the history record this call wrote
-- (for the caller's `cancelled` events), '' not to.
-- Returns one line of words, then when asked and one was written a newline
-- and the record this call wrote (JSON, which holds no raw newline):
--   'cancelled FROM COUNT JID' the id waited (FROM: queued, scheduled or
--     retry) and was taken out with its COUNT payloads, recorded cancelled
--     under JID (the token);
--   'STATE TICK FENCE COUNT RUNJID [JID]' a tick holds a run of the id:
--     STATE is 'marked' (its tick has not said it heard), 'heard' (it has:
--     the handler's signal aborted, or it will never start), 'orphaned' (the
--     tick's lease is gone: the resurrector records the run cancelled) or
--     'gone' (that tick no longer holds that run: it acked it, and if it was
--     marked, as cancelled); COUNT the payloads waiting behind the run that
--     this call cancelled, recorded under JID (the token) when COUNT > 0;
--     RUNJID the jid of the run's record, written when its tick settles it;
--   'none' the id has nothing waiting or running.
-- Replays: the token (lib/admin/answer-once.lua) answers a resent call with
-- the first reply, doing nothing. Without it a second run would find the id
-- gone from `ready`, or its mark set (HSETNX) and so cancel no payload that
-- waits behind the run: a payload enqueued after the first run stays, and
-- nothing is recorded twice. A concurrent tick cannot slip between: fetch,
-- ack and resurrect are scripts too, and a mark set while the tick holds
-- the run is read by its ack.
-- An id whose stored bytes are not UTF-8 (written by something other than tickq) is named as a client
-- read it, U+FFFD in place of those bytes: such an id is looked for by that reading among the waiting
-- and held ids (stored_id below), a read only, so replays and ticks see nothing new.
-- maxmemory: no flag: while Redis is full Redis refuses it at its first write if that write may
-- grow memory (REDIS_FULL, nothing written); a cancel that first removes payloads runs.
-- @include lib/common/prefix-keys.lua
-- @include lib/ordered/state.lua
-- @include lib/cancel/read-cancel-marks.lua
-- @include lib/admin/answer-once.lua
-- @include lib/ordered/cancel-ids.lua
-- @include lib/common/utf8-as-read.lua

local token = ARGV[2]
local keepMs = ARGV[3]
local name = ARGV[4]
local id = ARGV[5]
local tick = ARGV[6]
local fence = ARGV[7]
local records = ARGV[8] == '1'
local kept = kept_reply(token)
if kept then return kept end
local now = now_ms()

-- The stored id `id` names: itself, or, when it holds U+FFFD and no id is stored as it is, the waiting
-- or held id that a client reads as `id` (lib/common/utf8-as-read.lua). Read a page at a time; only an
-- id holding U+FFFD pays it. A tick of an older version keeps no `held` index: its run of such an id
-- is not found (as before), while its waiting ones are.
local function stored_id(candidate)
  if not string.find(candidate, '\239\191\189', 1, true) then return candidate end
  local ready, held = okey(name, 'ready'), okey(name, 'held')
  if redis.call('ZSCORE', ready, candidate) or redis.call('SISMEMBER', held, candidate) == 1 then return candidate end
  for _, scan in ipairs({ { 'ZSCAN', ready, 2 }, { 'SSCAN', held, 1 } }) do
    local cursor = '0'
    repeat
      local page = redis.call(scan[1], scan[2], cursor, 'COUNT', 1000)
      cursor = page[1]
      for k = 1, #page[2], scan[3] do
        if utf8_as_read(page[2][k]) == candidate then return page[2][k] end
      end
    until cursor == '0'
  end
  return candidate
end
id = stored_id(id)

-- The tick holding a run of the id, and that run's fence; nil when none does.
local function holder_of(field)
  for _, t in ipairs(redis.call('HKEYS', KEYS[1])) do
    local held = redis.call('HGET', oinproc_key(t), field)
    if held then return t, string.match(held, '^%S+ (%S+) ') end
  end
  return nil
end

-- The words, then the record when asked for one.
local function answer(words, record)
  if records and record ~= '' then words = words .. '\n' .. record end
  return keep_reply(token, keepMs, words)
end

if tick == '' then
  local from, count, record = cancel_waiting_id(name, id, now, token)
  if from then return answer('cancelled ' .. from .. ' ' .. count .. ' ' .. token, record) end
  tick, fence = holder_of(name .. ' ' .. id)
  if not tick then return keep_reply(token, keepMs, 'none') end
end

local fresh, arrived, record = mark_ordered(tick, name, id, fence, now, token)
local state = 'gone'
if fresh ~= 'gone' then
  state = 'marked'
  if redis.call('EXISTS', P .. 'tick:' .. tick) == 0 then
    state = 'orphaned'
  elseif redis.call('HGET', cancel_marks_key(tick), ordered_mark(name, fence, id)) == '1' then
    state = 'heard'
  end
end
local words = state .. ' ' .. tick .. ' ' .. fence .. ' ' .. arrived .. ' ' .. ordered_run_jid(name, fence)
if arrived > 0 then words = words .. ' ' .. token end
return answer(words, record)
