-- queues: every queue with its size, whether it is paused, and when a tick
-- last served it (lib/tick/record-heartbeat.lua). A paused queue is listed even when
-- no job was ever pushed to it.
-- KEYS: queues paused
-- ARGV: prefix
-- Returns: [name size paused servedMs]
-- paused: whether it is paused (1/0); servedMs: when a tick last served it
-- (0: never).
-- Replays: reads only.
-- @include lib/common/prefix-keys.lua

local names = redis.call('SUNION', KEYS[1], KEYS[2])
table.sort(names)
local out = {}
for _, queue in ipairs(names) do
  out[#out + 1] = queue
  out[#out + 1] = redis.call('LLEN', P .. 'queue:' .. queue)
  out[#out + 1] = redis.call('SISMEMBER', KEYS[2], queue)
  out[#out + 1] = tonumber(redis.call('HGET', P .. 'heartbeat', 'queue:' .. queue)) or 0
end
return out
