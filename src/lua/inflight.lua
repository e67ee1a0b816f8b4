-- inflight: the jobs in process — fetched by a tick and not yet acked —
-- with their tick and whether its lease is alive (a dead tick's jobs wait
-- for the resurrector). A tick holds at most 1.5 batches, so these lists
-- are short; the reply is capped all the same.
-- KEYS: ticks
-- ARGV: prefix limit
-- Returns: [tick alive queue job]
-- limit: most jobs to answer. alive: whether the tick's lease lives (1/0).
-- Replays: reads only.
-- maxmemory: reads only: answers as ever while Redis is full.
-- @include lib/common/prefix-keys.lua

local limit = tonumber(ARGV[2])
local out = {}
local registry = redis.call('HGETALL', KEYS[1])
for j = 1, #registry, 2 do
  local tick = registry[j]
  local alive = redis.call('EXISTS', P .. 'tick:' .. tick)
  for _, queue in ipairs(registered_queues(registry[j + 1])) do
    local left = limit - #out / 4
    if left <= 0 then return out end
    -- The list's right end holds the oldest fetched job.
    local jobs = redis.call('LRANGE', inproc_key(tick, queue), -left, -1)
    for k = #jobs, 1, -1 do
      out[#out + 1] = tick
      out[#out + 1] = alive
      out[#out + 1] = queue
      out[#out + 1] = jobs[k]
    end
  end
end
return out
