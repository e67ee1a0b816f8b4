-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Cancel marks (src/cancel/): a running job's cancel is a field of the hash
-- `cancel:TICK` of the tick that holds it, jid → '0' until that tick said it
-- heard of it, then '1'. A tick reads its hash on every extend, and on every
-- step once a mark flagged its lease (flag_cancel_marks; before that, none),
-- and every ack of the tick settles a marked job as cancelled, whatever its
-- handler did: the cancel was answered first, so it wins.
-- @include lib/common/prefix-keys.lua
-- @include lib/admin/match-jobs.lua

local CANCEL_MARKS_TTL_SEC = 7 * 86400

local function cancel_marks_key(tick)
  return P .. 'cancel:' .. tick
end

-- Flags the tick's lease (`cancels`), which its calls read with their
-- number (lib/tick/replay-call.lua's call_state): only a flagged tick reads
-- its marks. Only while the lease exists: HSET must never bring a lost
-- lease back, and a tick without one reads its marks anyway.
local function flag_cancel_marks(tick)
  local lease = P .. 'tick:' .. tick
  if redis.call('EXISTS', lease) == 1 then redis.call('HSET', lease, 'cancels', '1') end
end

-- jid → '0' or '1' for the tick's marked jobs; nil when there is none.
local function cancel_marks(tick)
  local flat = redis.call('HGETALL', cancel_marks_key(tick))
  if #flat == 0 then return nil end
  local marks = {}
  for k = 1, #flat, 2 do marks[flat[k]] = flat[k + 1] end
  return marks
end

-- The jids the tick has not said it heard of, for its reply ({} for none).
local function unheard_cancels(marks)
  local out = {}
  if not marks then return out end
  for jid, heard in pairs(marks) do
    if heard == '0' then out[#out + 1] = jid end
  end
  table.sort(out)
  return out
end

-- Marks the jobs the tick says it heard of as heard (a mark already gone stays gone).
local function note_heard(tick, jids)
  local key = cancel_marks_key(tick)
  for _, jid in ipairs(jids) do
    if redis.call('HEXISTS', key, jid) == 1 then redis.call('HSET', key, jid, '1') end
  end
end

-- Marks `jid`, held by `tick`, cancelled; an existing mark is kept as it is.
local function mark_cancelled(tick, jid)
  local key = cancel_marks_key(tick)
  redis.call('HSETNX', key, jid, '0')
  redis.call('EXPIRE', key, CANCEL_MARKS_TTL_SEC)
  flag_cancel_marks(tick)
  return redis.call('HGET', key, jid)
end

-- The jid of `job` when it is marked in `marks`, else nil (no decoding
-- unless the tick has marks at all).
local function marked_jid(marks, job)
  if not marks then return nil end
  local jid = string_field(job, 'jid')
  if jid and marks[jid] then return jid end
  return nil
end

local function forget_mark(tick, jid)
  redis.call('HDEL', cancel_marks_key(tick), jid)
end
