-- ordered_cancel: cancels an ordered id (tq.jobs.cancelOrdered), where it
-- waits or runs (lib/ordered/cancel-ids.lua).
-- KEYS: ticks
-- ARGV: prefix token keepMs name id tick fence
-- Returns: text
-- ticks: P.."ticks" (the registry, to find the tick holding the id).
-- tick, fence: '' to look for the id; a run found before ('TICK', 'FENCE')
-- to mark it or learn whether its tick heard.
-- Returns one line of words:
--   'cancelled FROM COUNT' the id waited (FROM: queued, scheduled or retry)
--     and was taken out with its COUNT payloads, recorded cancelled;
--   'STATE TICK FENCE COUNT' a tick holds a run of the id: STATE is 'marked'
--     (its tick has not said it heard), 'heard' (it has: the handler's signal
--     aborted, or it will never start), 'orphaned' (the tick's lease is gone:
--     the resurrector records the run cancelled) or 'gone' (that tick no
--     longer holds that run: it acked it, and if it was marked, as cancelled);
--     COUNT the payloads waiting behind the run that this call cancelled;
--   'none' the id has nothing waiting or running.
-- Replays: the token (lib/admin/answer-once.lua) answers a resent call with
-- the first reply, doing nothing. Without it a second run would find the id
-- gone from `ready`, or its mark set (HSETNX) and so cancel no payload that
-- waits behind the run: a payload enqueued after the first run stays. A
-- concurrent tick cannot slip between: fetch, ack and resurrect are scripts
-- too, and a mark set while the tick holds the run is read by its ack.
-- @include lib/common/prefix-keys.lua
-- @include lib/admin/answer-once.lua
-- @include lib/cancel/read-cancel-marks.lua
-- @include lib/ordered/state.lua
-- @include lib/ordered/cancel-ids.lua

local token = ARGV[2]
local keepMs = ARGV[3]
local name = ARGV[4]
local id = ARGV[5]
local tick = ARGV[6]
local fence = ARGV[7]
local kept = kept_reply(token)
if kept then return kept end
local now = now_ms()

-- The tick holding a run of the id, and that run's fence; nil when none does.
local function holder_of(field)
  for _, t in ipairs(redis.call('HKEYS', KEYS[1])) do
    local held = redis.call('HGET', oinproc_key(t), field)
    if held then return t, string.match(held, '^%S+ (%S+) ') end
  end
  return nil
end

if tick == '' then
  local from, count = cancel_waiting_id(name, id, now)
  if from then return keep_reply(token, keepMs, 'cancelled ' .. from .. ' ' .. count) end
  tick, fence = holder_of(name .. ' ' .. id)
  if not tick then return keep_reply(token, keepMs, 'none') end
end

local fresh, arrived = mark_ordered(tick, name, id, fence, now)
local state = 'gone'
if fresh ~= 'gone' then
  state = 'marked'
  if redis.call('EXISTS', P .. 'tick:' .. tick) == 0 then
    state = 'orphaned'
  elseif redis.call('HGET', cancel_marks_key(tick), ordered_mark(name, fence, id)) == '1' then
    state = 'heard'
  end
end
return keep_reply(token, keepMs, state .. ' ' .. tick .. ' ' .. fence .. ' ' .. arrived)
