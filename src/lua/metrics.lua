-- metrics: reads the per-minute metrics (lib/metrics/record-runs.lua) of a
-- range of minutes, the all-time totals on request, and each queue's
-- latency (lib/queues/measure-latency.lua, as tq.queues.list() reads it).
-- KEYS: queues
-- ARGV: prefix sinceMinute untilMinute name queue totals
-- Returns: (nowMs minutes[minute fields[]] latency[queue ms] totals[])
-- sinceMinute, untilMinute: minutes since the epoch, both included, at most
-- a week of them (the rest is left out); name,
-- queue: only the job fields and ordered waits of that name, the queue
-- fields and latency of that queue ('' all); totals: 1 to read `metrics:total` too. fields: a
-- minute's hash as field, value, … (minutes with no fields left out);
-- latency: ms (0 for an empty queue); totals: field, value, … or empty.
-- Replays: reads only.
-- maxmemory: reads only: answers as ever while Redis is full.
-- @include lib/common/prefix-keys.lua
-- @include lib/queues/measure-latency.lua

-- A week of minutes at most (src/metrics/query.ts refuses more): a read
-- must never hold Redis for long.
local MAX_MINUTES = 7 * 24 * 60
local sinceMinute = ARGV[2]
local untilMinute = ARGV[3]
local name = ARGV[4]
local queue = ARGV[5]
local totals = ARGV[6]
local since = tonumber(sinceMinute)
local till = math.min(tonumber(untilMinute), since + MAX_MINUTES - 1)
local now = now_ms()

-- Whether a field is wanted: a job field or an ordered wait of `name`
-- (lib/metrics/record-ordered-runs.lua), a queue field of `queue`.
local function owned_by(field, owner)
  local prefix = string.sub(field, 1, 2) .. owner .. '|'
  return string.sub(field, 1, #prefix) == prefix and not string.find(field, '|', #prefix + 1, true)
end
local function wanted(field)
  local kind = string.sub(field, 1, 2)
  if kind == 'j|' or kind == 'o|' then return name == '' or owned_by(field, name) end
  return queue == '' or owned_by(field, queue)
end

local function filtered(flat)
  if name == '' and queue == '' then return flat end
  local out = {}
  for k = 1, #flat, 2 do
    if wanted(flat[k]) then
      out[#out + 1] = flat[k]
      out[#out + 1] = flat[k + 1]
    end
  end
  return out
end

local minutes = {}
for minute = since, till do
  local fields = filtered(redis.call('HGETALL', P .. 'metrics:' .. minute))
  if #fields > 0 then
    minutes[#minutes + 1] = minute
    minutes[#minutes + 1] = fields
  end
end

local latency = {}
local queues = { queue }
if queue == '' then queues = redis.call('SMEMBERS', KEYS[1]) end
for _, q in ipairs(queues) do
  latency[#latency + 1] = q
  latency[#latency + 1] = queue_latency_ms(q, now)
end

local total_fields = {}
if totals == '1' then total_fields = filtered(redis.call('HGETALL', P .. 'metrics:total')) end
return { now, minutes, latency, total_fields }
