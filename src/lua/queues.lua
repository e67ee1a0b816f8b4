-- queues: every queue with its size, whether it is paused, when a tick
-- last served it (lib/tick/record-heartbeat.lua), and its latency. A paused queue is
-- listed even when no job was ever pushed to it.
-- KEYS: queues paused
-- ARGV: prefix
-- Returns: [name size paused servedMs latencyMs]
-- paused: whether it is paused (1/0); servedMs: when a tick last served it
-- (0: never); latencyMs: how long its oldest waiting job has waited
-- (lib/queues/measure-latency.lua; 0 when empty).
-- Replays: reads only.
-- maxmemory: reads only: answers as ever while Redis is full.
-- @include lib/common/prefix-keys.lua
-- @include lib/queues/measure-latency.lua
-- @include lib/order/count-queued.lua

local names = redis.call('SUNION', KEYS[1], KEYS[2])
table.sort(names)
local out = {}
local now = now_ms()
for _, queue in ipairs(names) do
  out[#out + 1] = queue
  out[#out + 1] = queued_size(queue)
  out[#out + 1] = redis.call('SISMEMBER', KEYS[2], queue)
  out[#out + 1] = tonumber(redis.call('HGET', P .. 'heartbeat', 'queue:' .. queue)) or 0
  out[#out + 1] = queue_latency_ms(queue, now)
end
return out
