-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Cancel of ordered ids (src/cancel/ordered.ts, ordered_cancel.lua). A
-- waiting id leaves `ready` at once. An id a tick holds is marked in that
-- tick's `cancel:TICK` hash (lib/cancel/read-cancel-marks.lua) under
-- "o NAME FENCE ID": no jid holds a space, and the fence names one run, so
-- a mark can never match a later run of the id. The tick's ack, or the
-- resurrector, settles a marked run as cancelled whatever its handler did.
-- What a cancel takes is recorded in the history of cancelled jobs,
-- `cancelled` (lib/cancel/record-cancelled.lua: the same set, the same
-- bounds, so tq.jobs.find and list("cancelled") show it), as a job-shaped
-- record: "tickq_cancelled_from", "class" (the name), "jid", "queue" ('':
-- no queue), "args" [id, [payloads as stored, never re-encoded]] as the
-- handler takes them, and "tickq_ordered" {fence (a run's), scores,
-- failures (when any)}. Its jid: a run's is "o-FENCE-NAME" (a fence names
-- one run of a name, so the tick that settles it and the cancel that
-- marked it know it alike); what a cancel call takes at once (a waiting id,
-- or the payloads waiting behind a run) has that call's token. It takes the
-- run's payloads and those waiting behind it when the mark was set;
-- payloads that arrive later are the id's next run: nothing enqueued after
-- a cancel returned is lost.
-- @include lib/common/prefix-keys.lua
-- @include lib/ordered/state.lua
-- @include lib/cancel/read-cancel-marks.lua
-- @include lib/cancel/record-cancelled.lua

local function ordered_mark(name, fence, id)
  return 'o ' .. name .. ' ' .. fence .. ' ' .. id
end

-- A cancelled run's record jid (src/cancel/ordered.ts orderedRunJid).
local function ordered_run_jid(name, fence)
  return 'o-' .. fence .. '-' .. name
end

-- Runs this script settled as cancelled, "NAME FENCE" each, for the tick's
-- reply: its `cancelled` events (step.lua, finish.lua).
local ordered_settled = {}

-- Moves the payloads of the zset `key` into a cancelled record `jid` of
-- `name` (`fence`: the run's, nil for payloads that never ran; `failures`:
-- the id's failed runs, nil for payloads that never ran). Returns how many,
-- and the record ('' for none).
local function record_ordered_cancelled(name, id, from, key, now, jid, fence, failures)
  local payloads, scores = {}, {}
  local count = read_payloads_of(key, payloads, scores)
  redis.call('DEL', key)
  if count == 0 then return 0, '' end
  local ordered = '"scores":[' .. table.concat(scores, ',') .. ']'
  if fence then ordered = '"fence":' .. fence .. ',' .. ordered end
  if failures and failures > 0 then ordered = ordered .. ',"failures":' .. failures end
  local record = '{"tickq_cancelled_from":"' .. from .. '","class":' .. cjson.encode(name)
    .. ',"jid":' .. cjson.encode(jid) .. ',"queue":"","args":[' .. cjson.encode(id) .. ',['
    .. table.concat(payloads, ',') .. ']],"tickq_ordered":{' .. ordered .. '}}'
  keep_cancelled(record, now / 1000)
  return count, record
end

local function failures_of(name, id)
  return tonumber(redis.call('HGET', okey(name, 'retries'), id)) or 0
end

local function forget_ordered_counts(name, id)
  for _, what in ipairs({ 'retries', 'resurrections', 'interruptions', 'suspects', 'doubts' }) do
    redis.call('HDEL', okey(name, what), id)
  end
end

-- A waiting id (in `ready`: queued, due later, or backing off) is cancelled
-- with every payload, recorded under `jid`. Returns where it was ('queued',
-- 'scheduled' or 'retry'), how many payloads and the record, or nil when it
-- is not waiting.
local function cancel_waiting_id(name, id, now, jid)
  local ready = okey(name, 'ready')
  local due = tonumber(redis.call('ZSCORE', ready, id))
  if not due then return nil end
  local from = 'queued'
  if redis.call('HEXISTS', okey(name, 'retries'), id) == 1 then
    from = 'retry'
  elseif due > now then
    from = 'scheduled'
  end
  redis.call('ZREM', ready, id)
  local count, record = record_ordered_cancelled(name, id, from, okey(name, 'p:' .. id), now, jid, nil, failures_of(name, id))
  redis.call('DECRBY', okey(name, 'payloads'), count)
  forget_ordered_counts(name, id)
  -- Left by a previous version's resurrector (lib/ordered/fetch-ids.lua takes it out at a fetch).
  redis.call('HDEL', okey(name, 'capped'), id)
  redis.call('INCR', P .. 'stat:cancelled')
  return from, count, record
end

-- Marks the run of `id` that `tick` holds under `fence`. The first mark
-- also cancels the payloads waiting behind the run, recorded under `jid`.
-- Returns 'gone' (the tick no longer holds that run), or 1 when this call
-- set the mark, 0 when it was set already; how many waiting payloads it
-- cancelled, and their record ('' for none).
local function mark_ordered(tick, name, id, fence, now, jid)
  local token = redis.call('HGET', oinproc_key(tick), name .. ' ' .. id)
  local prefix = tick .. ' ' .. fence .. ' '
  if not token or string.sub(token, 1, #prefix) ~= prefix then return 'gone', 0, '' end
  local key = cancel_marks_key(tick)
  local fresh = redis.call('HSETNX', key, ordered_mark(name, fence, id), '0')
  redis.call('EXPIRE', key, CANCEL_MARKS_TTL_SEC)
  flag_cancel_marks(tick)
  if fresh == 0 then return 0, 0, '' end
  -- A capped run's rest waits behind it in p:ID: it goes with the arrivals, and p:ID holds the run alone.
  local run = capped_run.take(name, id, true)
  if run then
    local p, n = okey(name, 'p:' .. id), okey(name, 'n:' .. id)
    local rest = redis.call('ZRANGE', p, string.format('%d', run), '-1', 'WITHSCORES')
    local args = {}
    for k = 1, #rest, 2 do args[#args + 1], args[#args + 2] = rest[k + 1], rest[k] end
    -- In parts: Lua unpacks some 8,000 values at most. LT: an identical arrival keeps its lowest score.
    local added = 0
    for from = 1, #args, 2000 do added = added + redis.call('ZADD', n, 'LT', unpack(args, from, math.min(from + 1999, #args))) end
    redis.call('ZREMRANGEBYRANK', p, string.format('%d', run), '-1')
    -- A payload of the rest identical to an arrival (both counted waiting) is one payload once merged,
    -- recorded and taken off the count once: the other count goes here.
    if added < #args / 2 then redis.call('DECRBY', okey(name, 'payloads'), #args / 2 - added) end
  end
  local arrived, record = record_ordered_cancelled(name, id, 'queued', okey(name, 'n:' .. id), now, jid)
  redis.call('ZREM', okey(name, 'later'), id)
  if arrived > 0 then redis.call('DECRBY', okey(name, 'payloads'), arrived) end
  return 1, arrived, record
end

-- The held run of `id` ends cancelled (its tick acks it, or the resurrector
-- finds it marked): its payloads recorded, its token, mark and counts gone;
-- payloads that arrived after the cancel become the id's; noted in
-- `ordered_settled`. Returns 1 if the id is ready again.
local function settle_ordered_cancelled(tick, name, id, fence, now)
  redis.call('HDEL', oinproc_key(tick), name .. ' ' .. id)
  redis.call('SREM', okey(name, 'held'), id)
  redis.call('DECRBY', okey(name, 'running'), 1)
  forget_mark(tick, ordered_mark(name, fence, id))
  -- A rest behind a capped run (a cancel of an older version marked it, leaving the rest) ends with it:
  -- it was counted waiting.
  local run = capped_run.take(name, id, true)
  local count = record_ordered_cancelled(name, id, 'running', okey(name, 'p:' .. id), now, ordered_run_jid(name, fence), fence, failures_of(name, id))
  if run and count > run then redis.call('DECRBY', okey(name, 'payloads'), count - run) end
  ordered_settled[#ordered_settled + 1] = name .. ' ' .. fence
  forget_ordered_counts(name, id)
  redis.call('INCR', P .. 'stat:cancelled')
  return promote_arrivals(name, id, tonumber(redis.call('ZSCORE', okey(name, 'later'), id)))
end

-- Whether `marks` (the tick's, lib/cancel/read-cancel-marks.lua) hold the
-- run of `id` under `fence`; a mark found is taken out of `marks`, so the
-- tick's reply no longer lists it as unheard.
local function take_ordered_mark(marks, name, fence, id)
  if not marks then return false end
  local field = ordered_mark(name, fence, id)
  if not marks[field] then return false end
  marks[field] = nil
  return true
end
