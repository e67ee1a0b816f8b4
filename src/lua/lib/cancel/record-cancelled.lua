-- A cancelled job's record (src/cancel/): the job's own text with
-- "tickq_cancelled_from" (the state it was cancelled in: queued, scheduled,
-- retry, running) spliced in after its opening brace, in the sorted set
-- `cancelled` scored by when (epoch seconds), as succeeded jobs are kept
-- (lib/results/keep-results.lua); counted in `stat:cancelled`; and for an
-- awaited job (tq.enqueueAndWait) its outcome under `result:JID`.
-- Kept: the newest CANCELLED_KEEP, none older than CANCELLED_AGE_SEC.
-- Callers record a job only when they took it out of where it was in the
-- same call, so a replay finds it gone and records nothing twice.
-- @include lib/common/prefix-keys.lua
-- @include lib/admin/match-jobs.lua

local CANCELLED_KEEP = 10000
local CANCELLED_AGE_SEC = 7 * 86400
local CANCELLED_AWAITED_TTL_MS = 3600000 -- src/results/settings.ts AWAITED_RESULT_TTL_MS

-- Adds `text` to the history at `now_sec` and trims it to its bounds; ordered
-- runs' records share the set and the bounds (lib/ordered/cancel-ids.lua).
local function keep_cancelled(text, now_sec)
  local key = P .. 'cancelled'
  redis.call('ZADD', key, now_sec, text)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. (now_sec - CANCELLED_AGE_SEC))
  local size = redis.call('ZCARD', key)
  if size > CANCELLED_KEEP then redis.call('ZREMRANGEBYRANK', key, 0, size - CANCELLED_KEEP - 1) end
end

local function record_cancelled(job, from, now_ms_value)
  local now_sec = now_ms_value / 1000
  local members = '"tickq_cancelled_from":"' .. from .. '"'
  local open = string.find(job, '{', 1, true)
  local text = job
  if open then
    local sep = ','
    if string.find(job, '^%s*}', open + 1) then sep = '' end
    text = string.sub(job, 1, open) .. members .. sep .. string.sub(job, open + 1)
  end
  keep_cancelled(text, now_sec)
  redis.call('INCR', P .. 'stat:cancelled')
  if string.find(job, '"tickq_await"', 1, true) then
    local jid = string_field(job, 'jid')
    if jid then
      local record = '{"state":"cancelled","finished_at":' .. now_ms_value .. ',"tickq_cancelled_from":"' .. from .. '"}'
      redis.call('SET', P .. 'result:' .. jid, record, 'PX', CANCELLED_AWAITED_TTL_MS)
    end
  end
end
