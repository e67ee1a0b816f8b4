-- cancel: cancels one job, found where it waits or runs (tq.jobs.cancel).
-- KEYS: queues
-- ARGV: prefix token keepMs jid from job distance tick
-- Returns: text
-- from: where tq.jobs.find saw it: 'schedule', 'retry', 'queue:NAME', a flow
-- park list 'flow:park:KEY', or for a job in process 'inproc:QUEUE' (its
-- tick's list) with `tick` the tick holding it ('' otherwise). job: its
-- stored text; distance: a queued job's distance from the head ('' unknown).
-- A job whose bytes are not valid UTF-8 is named by '~' .. the SHA-1 of its
-- text as read (lib/admin/find-as-read.lua): then distance is where it was
-- seen, a sorted set's score or a list's distance (a tick's list is read whole).
-- Returns 'cancelled' (a waiting job taken out and recorded cancelled,
-- lib/cancel/record-cancelled.lua), 'gone' (no longer there: a tick moved it
-- first; look again), or for a job in process, marked cancelled
-- (lib/cancel/read-cancel-marks.lua): 'marked' (its tick has not yet said it
-- heard), 'heard' (its tick has: the handler's signal is aborted and the job
-- will not start), 'orphaned' (its tick's lease is gone: the resurrector
-- records it cancelled instead of putting it back).
-- Replays: the token (lib/admin/answer-once.lua) answers a resent call with the first
-- reply, doing nothing. Even without it a waiting job is taken out only if its
-- text is still there (a second run finds it gone and records nothing), and
-- a mark is set only when absent (HSETNX): a second run changes nothing. A
-- job named by its text as read is looked for again, and is gone or marked.
-- maxmemory: no flag: while Redis is full, a cancel that first takes the job out of its list or set
-- (queued, scheduled, retry) runs, since Redis refuses a script only at a first write that may grow
-- memory; one that marks a running job is refused with REDIS_FULL, nothing written. Finding a job
-- by its text as read only reads.
-- @include lib/common/prefix-keys.lua
-- @include lib/debounce/close-window.lua
-- @include lib/order/read-order.lua
-- @include lib/flow/read.lua
-- @include lib/flow/flow.lua
-- @include lib/cancel/read-cancel-marks.lua
-- @include lib/cancel/record-cancelled.lua
-- @include lib/order/remove-job.lua
-- @include lib/admin/answer-once.lua
-- @include lib/admin/find-as-read.lua

local token = ARGV[2]
local keepMs = ARGV[3]
local jid = ARGV[4]
local from = ARGV[5]
local job = ARGV[6]
local distance = ARGV[7]
local tick = ARGV[8]
local kept = kept_reply(token)
if kept then return kept end

-- A job named by its text as read: its stored bytes where the client saw it
-- (nil: gone). A plain job is named by its text: one length check.
if #job == 41 and string.byte(job) == 126 and as_read.is_name(job) then
  local key = P .. from
  -- A tick's list is read whole, as LPOS reads it below: the find gives no distance in it.
  if string.sub(from, 1, 7) == 'inproc:' then key = inproc_key(tick, string.sub(from, 8)) end
  local stored, at = as_read.find(key, from, job, distance)
  if not stored then return keep_reply(token, keepMs, 'gone') end
  job = stored
  if at then distance = tostring(at) end
end

-- A job in process: marked, never moved (its tick settles it, lib/tick/ack-jobs.lua).
if string.sub(from, 1, 7) == 'inproc:' then
  local list = inproc_key(tick, string.sub(from, 8))
  if not redis.call('LPOS', list, job) then return keep_reply(token, keepMs, 'gone') end
  local heard = mark_cancelled(tick, jid)
  local reply = 'marked'
  if redis.call('EXISTS', P .. 'tick:' .. tick) == 0 then reply = 'orphaned'
  elseif heard == '1' then reply = 'heard' end
  return keep_reply(token, keepMs, reply)
end

local key = P .. from
local removed = false
local state = 'queued'
if string.sub(from, 1, 6) == 'queue:' and order.of(job) then
  -- A job with a priority or a group waits in its set, not the list (lib/order/read-order.lua).
  removed = order.remove(string.sub(from, 7), job) == 1
elseif string.sub(from, 1, 6) == 'queue:' then
  local len = redis.call('LLEN', key)
  local d = tonumber(distance)
  local direction = -1
  if d and d > len / 2 then direction = 1 end
  removed = redis.call('LREM', key, direction, job) == 1
elseif string.sub(from, 1, 10) == 'flow:park:' then
  removed = redis.call('LREM', key, -1, job) == 1
  if removed then flow().unparked(job, string.sub(from, 11)) end
elseif from == 'schedule' or from == 'retry' then
  removed = redis.call('ZREM', key, job) == 1
  state = from == 'schedule' and 'scheduled' or 'retry'
  if removed and from == 'schedule' then close_debounce_window(job) end
end
if not removed then return keep_reply(token, keepMs, 'gone') end
-- Counts and a suspect mark kept by the job's text (lib/tick/ack-jobs.lua) end with it.
redis.call('HDEL', P .. 'resurrections', job)
redis.call('HDEL', P .. 'interruptions', job)
redis.call('HDEL', P .. 'suspects', job)
redis.call('HDEL', P .. 'doubts', job)
-- A cancelled flow job never runs: its claims end and its keys' next parked job moves on.
if is_flow(job) then
  flow().forget(job)
  flow().unstrand(job)
end
record_cancelled(job, state, now_ms())
return keep_reply(token, keepMs, 'cancelled')
