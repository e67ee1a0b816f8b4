-- queue_parts: where a queue's jobs wait besides its plain list — whether it
-- has jobs with a priority, and its groups (lib/order/read-order.lua) —
-- so the jobs API can list and clear every part of a queue.
-- KEYS: ring
-- ARGV: prefix queue
-- Returns: (prio groups[])
-- ring: P.."groups:"..QUEUE; prio: 1 when `prio:QUEUE` holds jobs; groups:
-- the names of its non-empty groups, sorted.
-- Replays: reads only.
-- maxmemory: reads only: answers as ever while Redis is full.
-- @include lib/common/prefix-keys.lua

local queue = ARGV[2]

local groups = {}
for _, group in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  if group ~= '' then groups[#groups + 1] = group end
end
table.sort(groups)
return { redis.call('EXISTS', P .. 'prio:' .. queue), groups }
