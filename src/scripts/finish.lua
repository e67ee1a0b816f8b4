-- finish: settle the last batch (unstarted jobs go back to the head of their
-- queues), release the resurrector lock if this tick holds it, and remove
-- the tick's registration and lease once its lists are empty. A job still
-- listed (a handler that ignored the abort) keeps the registration, and the
-- lease is left to expire so a later tick resurrects it.
-- KEYS: [1] P.."ticks"  [2] P.."tick:"..ID (the lease)
-- ARGV: [1] prefix  [2] tick id  [3] lease ms  [4] dead max size
--       [5] dead max age s  [6..] ack entries (lib/ack.lua), then n and the
--       n queues this tick served
-- Returns: {now ms, jobs left in its lists, dead evictions}
-- @include lib/common.lua
-- @include lib/ack.lua

local tick = ARGV[2]
local now = now_ms()
local i, evicted = ack(tick, 6, now, tonumber(ARGV[4]), tonumber(ARGV[5]))
if redis.call('GET', P .. 'resurrector') == tick then redis.call('DEL', P .. 'resurrector') end
local left = 0
for k = 1, tonumber(ARGV[i]) do
  left = left + redis.call('LLEN', inproc_key(tick, ARGV[i + k]))
end
if left == 0 then
  redis.call('HDEL', KEYS[1], tick)
  redis.call('DEL', KEYS[2])
end
return { now, left, evicted }
