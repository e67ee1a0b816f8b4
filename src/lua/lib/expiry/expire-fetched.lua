-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Expiry at fetch (src/expiry/): a job whose text opens with
-- `{"tickq_expires_at":MS,` (lib/expiry/stamp-expiry.lua) and whose time
-- has passed is never started: the fetch moves it to the `expired` history
-- (a sorted set scored by when it expired, epoch seconds, bounded like the
-- dead set), counts it in `stat:expired`, and reads on to fill its batch.
-- Only the jobs a fetch takes are looked at, never the rest of a queue, and
-- a job without an expiry costs one byte compare.
-- An awaited job (enqueueAndWait: `"tickq_await":1`) gets its outcome
-- record, `result:JID` = {"state":"expired",…}, kept an hour as the awaited
-- records of lib/results/keep-results.lua are.
-- The texts recorded this call are in `expired_now` (the reply carries
-- them, for the `expired` event). A replay of the call answers the kept
-- reply; the jobs are no longer in their queue, so nothing is recorded twice.
-- Needs lib/common/edit-job-text.lua (top_field) in the entry script.
-- @include lib/common/prefix-keys.lua
-- @include lib/common/edit-job-text.lua

local EXPIRES_AT_HEAD = '{"tickq_expires_at":'
local EXPIRES_AT_LETTER = string.byte(EXPIRES_AT_HEAD, 9)
local expired_now = {}
-- The dead set's bounds (deadMaxSize, deadMaxAgeSec), set by the entry
-- script that has them; else Sidekiq's defaults for its dead set.
local expired_keep = { size = 10000, age = 15552000 }

local function keep_expired_like_dead(size, age)
  expired_keep.size, expired_keep.age = size, age
end

-- When `job` expires (epoch ms), or nil: it has no expiry. The head is
-- told by two bytes ('e' of expires, 'a' of at) and its 13 digits (epoch
-- ms until the year 2286) read by position: no pattern per fetched job.
local EXPIRES_AT_A = string.byte(EXPIRES_AT_HEAD, 17)
local DIGITS_AT = #EXPIRES_AT_HEAD + 1
local COMMA = string.byte(',')
local function expiry_of(job)
  if string.byte(job, 9) ~= EXPIRES_AT_LETTER or string.byte(job, 17) ~= EXPIRES_AT_A then return nil end
  if string.byte(job, DIGITS_AT + 13) == COMMA then return tonumber(string.sub(job, DIGITS_AT, DIGITS_AT + 12)) end
  return tonumber(string.match(job, '^{"tickq_expires_at":(%d+),'))
end

local AWAITED_MS = 3600000

local function note_awaited(job, now)
  if not string.find(job, '"tickq_await":', 1, true) or top_field(job, 'tickq_await') ~= 'number' then return end
  local kind, jid = top_field(job, 'jid')
  if kind ~= 'string' then return end
  local record = '{"state":"expired","finished_at":' .. string.format('%.0f', now)
    .. ',"expires_at":' .. string.format('%.0f', expiry_of(job) or 0) .. '}'
  redis.call('SET', P .. 'result:' .. jid, record, 'PX', AWAITED_MS)
end

local function record_expired(jobs, now)
  local now_sec = now / 1000
  local key = P .. 'expired'
  for from = 1, #jobs, 1000 do
    local zadd = { 'ZADD', key }
    for k = from, math.min(from + 999, #jobs) do
      zadd[#zadd + 1] = now_sec
      zadd[#zadd + 1] = jobs[k]
      expired_now[#expired_now + 1] = jobs[k]
      note_awaited(jobs[k], now)
    end
    redis.call(unpack(zadd))
  end
  redis.call('INCRBY', P .. 'stat:expired', #jobs)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. (now_sec - expired_keep.age))
  local size = redis.call('ZCARD', key)
  if size > expired_keep.size then redis.call('ZREMRANGEBYRANK', key, 0, size - expired_keep.size - 1) end
end

-- `items` without the jobs expired by now, which are recorded; the same
-- table when none is, and how many were dropped. Redis' clock is read only
-- when a job has an expiry.
local function drop_expired(items)
  local first, now
  for k = 1, #items do
    local at = expiry_of(items[k])
    if at then
      now = now or now_ms()
      if at <= now then
        first = k
        break
      end
    end
  end
  if not first then return items, 0 end
  -- `items` is in LRANGE order (newest first): the expired are recorded oldest first.
  local kept, gone = {}, {}
  for k = 1, #items do
    local at = k >= first and expiry_of(items[k])
    if not (at and at <= now) then kept[#kept + 1] = items[k] end
  end
  for k = #items, first, -1 do
    local at = expiry_of(items[k])
    if at and at <= now then gone[#gone + 1] = items[k] end
  end
  record_expired(gone, now)
  return kept, #gone
end
