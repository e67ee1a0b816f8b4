-- Cancel of ordered ids (src/cancel/ordered.ts, ordered_cancel.lua). A
-- waiting id leaves `ready` at once. An id a tick holds is marked in that
-- tick's `cancel:TICK` hash (lib/cancel/read-cancel-marks.lua) under
-- "o NAME FENCE ID": no jid holds a space, and the fence names one run, so
-- a mark can never match a later run of the id. The tick's ack, or the
-- resurrector, settles a marked run as cancelled whatever its handler did.
-- What a cancel takes goes to `o:NAME:cancelled` (score: when, in seconds;
-- the newest 10,000, none older than 7 days), an entry shaped as the dead
-- one: name, id, fence (a run's), cancelled_at, tickq_cancelled_from, the
-- payloads as stored (never re-encoded) and their scores. It takes the
-- run's payloads and those waiting behind it when the mark was set;
-- payloads that arrive later are the id's next run: nothing enqueued after
-- a cancel returned is lost.

local ORDERED_CANCELLED_KEEP = 10000
local ORDERED_CANCELLED_AGE_SEC = 7 * 86400

local function ordered_mark(name, fence, id)
  return 'o ' .. name .. ' ' .. fence .. ' ' .. id
end

-- Moves the payloads of the zset `key` into a cancelled entry of `name`
-- (`fence`: the run's, nil for payloads that never ran); returns how many.
local function record_ordered_cancelled(name, id, fence, from, key, now)
  local payloads, scores = {}, {}
  local count = read_payloads_of(key, payloads, scores)
  redis.call('DEL', key)
  if count == 0 then return 0 end
  local now_sec = now / 1000
  local entry = '{"name":' .. cjson.encode(name) .. ',"id":' .. cjson.encode(id)
    .. (fence and (',"fence":' .. fence) or '') .. ',"cancelled_at":' .. now_sec
    .. ',"tickq_cancelled_from":"' .. from .. '","payloads":[' .. table.concat(payloads, ',')
    .. '],"scores":[' .. table.concat(scores, ',') .. ']}'
  local set = okey(name, 'cancelled')
  redis.call('ZADD', set, now_sec, entry)
  redis.call('ZREMRANGEBYSCORE', set, '-inf', '(' .. (now_sec - ORDERED_CANCELLED_AGE_SEC))
  local size = redis.call('ZCARD', set)
  if size > ORDERED_CANCELLED_KEEP then redis.call('ZREMRANGEBYRANK', set, 0, size - ORDERED_CANCELLED_KEEP - 1) end
  return count
end

local function forget_ordered_counts(name, id)
  for _, what in ipairs({ 'retries', 'resurrections', 'interruptions', 'suspects', 'doubts' }) do
    redis.call('HDEL', okey(name, what), id)
  end
end

-- A waiting id (in `ready`: queued, due later, or backing off) is cancelled
-- with every payload. Returns where it was ('queued', 'scheduled' or
-- 'retry') and how many payloads, or nil when it is not waiting.
local function cancel_waiting_id(name, id, now)
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
  local count = record_ordered_cancelled(name, id, nil, from, okey(name, 'p:' .. id), now)
  redis.call('DECRBY', okey(name, 'payloads'), count)
  forget_ordered_counts(name, id)
  redis.call('INCR', P .. 'stat:cancelled')
  return from, count
end

-- Marks the run of `id` that `tick` holds under `fence`. The first mark
-- also cancels the payloads waiting behind the run. Returns 'gone' (the
-- tick no longer holds that run), or 1 when this call set the mark, 0 when
-- it was set already; and how many waiting payloads it cancelled.
local function mark_ordered(tick, name, id, fence, now)
  local token = redis.call('HGET', oinproc_key(tick), name .. ' ' .. id)
  local prefix = tick .. ' ' .. fence .. ' '
  if not token or string.sub(token, 1, #prefix) ~= prefix then return 'gone', 0 end
  local key = cancel_marks_key(tick)
  local fresh = redis.call('HSETNX', key, ordered_mark(name, fence, id), '0')
  redis.call('EXPIRE', key, CANCEL_MARKS_TTL_SEC)
  flag_cancel_marks(tick)
  if fresh == 0 then return 0, 0 end
  local arrived = record_ordered_cancelled(name, id, nil, 'queued', okey(name, 'n:' .. id), now)
  redis.call('ZREM', okey(name, 'later'), id)
  if arrived > 0 then redis.call('DECRBY', okey(name, 'payloads'), arrived) end
  return 1, arrived
end

-- The held run of `id` ends cancelled (its tick acks it, or the resurrector
-- finds it marked): its payloads recorded, its token, mark and counts gone;
-- payloads that arrived after the cancel become the id's. Returns 1 if the
-- id is ready again.
local function settle_ordered_cancelled(tick, name, id, fence, now)
  redis.call('HDEL', oinproc_key(tick), name .. ' ' .. id)
  redis.call('DECRBY', okey(name, 'running'), 1)
  forget_mark(tick, ordered_mark(name, fence, id))
  record_ordered_cancelled(name, id, fence, 'running', okey(name, 'p:' .. id), now)
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
