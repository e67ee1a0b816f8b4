-- debounce: enqueue a debounced job (src/debounce/): the job of a key runs
-- delayMs after the last enqueue of that key, with the last args, and no
-- later than maxDelayMs after the first. One call per enqueue, so
-- concurrent enqueues of a key are serialized by Redis.
-- KEYS: schedule
-- ARGV: prefix token tokenMs key delayMs maxDelayMs jid job
-- Returns: text
-- schedule: P.."schedule" (the delayed set the job waits in); token: drawn
-- per call; tokenMs: how long the call token is kept; key: the debounce
-- key, namespaced by the job name; jid: the jid drawn for this enqueue;
-- job: its JSON ending in `}`, with that jid, without created_at.
-- Returns the jid of the job that will run: the one of the open window.
-- The window of a key is `debounce:KEY`, a hash (jid, first: ms of the
-- window's first enqueue, text: the job's text in `schedule`). It is open
-- while that text is still in `schedule`, however long no tick runs; once the
-- job is due (moved to its queue), run, deleted or run now, the next enqueue
-- opens a new window. The text ends with `,"tickq_debounce":KEY}`, so what
-- takes it out of `schedule` deletes the window (lib/debounce/close-window.lua).
-- Replays: the call token is set NX for the call window; a replay finds it
-- and answers the first run's jid, writing nothing.
-- maxmemory: no flag: while Redis is full it is refused with REDIS_FULL before it writes anything,
-- as enqueue.
-- @include lib/common/prefix-keys.lua
-- @include lib/expiry/stamp-expiry.lua

local token = ARGV[2]
local tokenMs = ARGV[3]
local key = ARGV[4]
local delayMs = tonumber(ARGV[5])
local maxDelayMs = tonumber(ARGV[6])
local jid = ARGV[7]
local job = ARGV[8]

local SAFETY_MS = 7 * 86400000
local token_key = P .. 'deb:' .. token
if not redis.call('SET', token_key, '', 'NX', 'PX', tokenMs) then
  return redis.call('GET', token_key)
end
local now = now_ms()
local window = P .. 'debounce:' .. key
job = stamp_expiry(job, now)

local held = redis.call('HMGET', window, 'jid', 'first', 'text')
local first = now
if held[3] and redis.call('ZSCORE', KEYS[1], held[3]) then
  -- The window is open: the new args replace the waiting job's, under its jid.
  redis.call('ZREM', KEYS[1], held[3])
  first = tonumber(held[2])
  local at = string.find(job, '"jid":"' .. jid .. '"', 1, true)
  if at then
    job = string.sub(job, 1, at - 1) .. '"jid":"' .. held[1] .. '"' .. string.sub(job, at + 8 + #jid)
  end
  jid = held[1]
end
local due = math.min(now + delayMs, first + maxDelayMs)
local text = string.sub(job, 1, -2) .. ',"created_at":' .. string.format('%.3f', now / 1000)
  .. ',"tickq_debounce":' .. cjson.encode(key) .. '}'
redis.call('ZADD', KEYS[1], due / 1000, text)
redis.call('HSET', window, 'jid', jid, 'first', string.format('%.0f', first), 'text', text)
-- The job's leaving `schedule` deletes the window; the TTL, a week past the
-- window's latest end (first + maxDelayMs), only bounds a window whose job was
-- taken by other means (`schedule` deleted by hand, a job moved by an older
-- version's script).
-- It never decides the window: an expired window with its job still waiting
-- would let a second job of the key run.
redis.call('PEXPIRE', window, math.max(first + maxDelayMs - now, 0) + SAFETY_MS)
redis.call('SET', token_key, jid, 'PX', tokenMs)
return jid
