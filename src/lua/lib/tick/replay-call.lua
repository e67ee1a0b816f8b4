-- A tick numbers its calls (begin 1, then 2, 3, …) and keeps, in its lease
-- hash (`tick:ID`: seq, reply), the number and the reply of the last one.
-- A call whose reply was lost may reach Redis again (ioredis resends after
-- a reconnect, @upstash/redis retries, a failover replays): the replay gets
-- the first run's reply and acts on nothing, so no batch is acked twice,
-- fetched twice or deleted as "the next batch".
--
-- Replies are kept in a small length-prefixed encoding, not cjson: a job
-- string must come back byte for byte.
-- @include lib/common/prefix-keys.lua

local function encode_reply(v, out)
  out = out or {}
  local t = type(v)
  if t == 'table' then
    out[#out + 1] = 't' .. #v .. ':'
    for k = 1, #v do encode_reply(v[k], out) end
  elseif t == 'number' then
    out[#out + 1] = 'n' .. string.format('%.17g', v) .. ';'
  else
    local s = tostring(v)
    out[#out + 1] = 's' .. #s .. ':' .. s
  end
  return out
end

local function decode_reply(s, i)
  i = i or 1
  local tag = string.sub(s, i, i)
  if tag == 'n' then
    local e = string.find(s, ';', i, true)
    return tonumber(string.sub(s, i + 1, e - 1)), e + 1
  end
  local colon = string.find(s, ':', i, true)
  local n = tonumber(string.sub(s, i + 1, colon - 1))
  if tag == 's' then return string.sub(s, colon + 1, colon + n), colon + n + 1 end
  local list, j = {}, colon + 1
  for k = 1, n do list[k], j = decode_reply(s, j) end
  return list, j
end

-- 'fresh' (act), 'replay' (answer the kept reply), 'stale' (an older call,
-- long answered) or 'lost' (no lease: the tick may have been resurrected).
-- Third: whether the tick may have cancel marks to read (false only when
-- the lease is there without the `cancels` flag that every mark sets:
-- lib/cancel/read-cancel-marks.lua), read with `seq` so a tick whose jobs
-- nobody cancelled pays no command for cancels.
local function call_state(lease, seq)
  local row = redis.call('HMGET', lease, 'seq', 'cancels')
  local last = row[1]
  if not last then return 'lost', nil, true end
  last = tonumber(last)
  local marked = row[2] ~= false
  if seq == last then return 'replay', (decode_reply(redis.call('HGET', lease, 'reply'))), marked end
  if seq < last then return 'stale', nil, marked end
  return 'fresh', nil, marked
end

-- Only while the lease exists: HSET must never bring a lost lease back.
-- `load`, when given, is the tick's load (lib/tick/run-solo.lua's load_text),
-- kept in the same HSET: a step pays one write, not two.
local function remember(lease, seq, reply, load)
  local text = table.concat(encode_reply(reply))
  if load then
    redis.call('HSET', lease, 'seq', seq, 'reply', text, 'load', load)
  else
    redis.call('HSET', lease, 'seq', seq, 'reply', text)
  end
  return reply
end

-- The jobs a call fetched are not kept with its reply: they sit at the head
-- (left) of the tick's lists, untouched until the tick's next call, so a
-- replay reads them back. (A copy of every job string per call cost more
-- than the fetch itself.) `groups` is fetch()'s reply: queue, {jobs},
-- {resurrection counts}, …; the kept form has a count instead of {jobs}.
local function without_jobs(groups)
  local kept = {}
  for g = 1, #groups, 3 do
    kept[g], kept[g + 1], kept[g + 2] = groups[g], #groups[g + 1], groups[g + 2]
  end
  return kept
end

-- Undoes without_jobs. Groups are read back last first: a queue fetched
-- twice in one call has its second group nearest the head.
local function with_jobs(tick, kept)
  local groups, offsets = {}, {}
  for g = #kept - 2, 1, -3 do
    local queue, n = kept[g], kept[g + 1]
    local at = offsets[queue] or 0
    local newest_first = {}
    if n > 0 then newest_first = redis.call('LRANGE', inproc_key(tick, queue), at, at + n - 1) end
    offsets[queue] = at + n
    local jobs = {}
    for k = #newest_first, 1, -1 do jobs[#jobs + 1] = newest_first[k] end
    groups[g], groups[g + 1], groups[g + 2] = queue, jobs, kept[g + 2]
  end
  return groups
end
