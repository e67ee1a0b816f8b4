-- ticks: the live ticks of the registry, each with its lease — for the
-- dashboard's ticks page. A tick whose lease is gone still shows (lease
-- left -2) until the resurrector takes its jobs back.
-- KEYS: ticks
-- ARGV: prefix limit
-- Returns: (nowMs ticks[id startedMs leaseMs leaseLeftMs inflight queues] recent[])
-- limit: most ticks to answer. leaseLeftMs: PTTL (-2: gone); inflight: jobs in
-- process; queues: "queue queue …". recent: the last ticks' summaries, newest
-- first, "<ms> <json>" (lib/tick/record-recent.lua: at most 100).
-- Replays: reads only.
-- maxmemory: reads only: answers as ever while Redis is full.
-- @include lib/common/prefix-keys.lua

local limit = tonumber(ARGV[2])
local out = {}
local registry = redis.call('HGETALL', KEYS[1])
for j = 1, math.min(#registry, limit * 2), 2 do
  local tick, registration = registry[j], registry[j + 1]
  local started, lease = string.match(registration, '^(%S+)%s+(%S+)')
  local queues = registered_queues(registration)
  local held = 0
  for _, queue in ipairs(queues) do held = held + redis.call('LLEN', inproc_key(tick, queue)) end
  out[#out + 1] = tick
  out[#out + 1] = tonumber(started) or 0
  out[#out + 1] = tonumber(lease) or 0
  out[#out + 1] = redis.call('PTTL', P .. 'tick:' .. tick)
  out[#out + 1] = held
  out[#out + 1] = table.concat(queues, ' ')
end
return { now_ms(), out, redis.call('LRANGE', P .. 'ticks:recent', 0, 99) }
