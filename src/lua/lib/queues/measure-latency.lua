-- Queue latency: how long the oldest of a queue's waiting jobs has waited
-- since its `enqueued_at`. Each place a queue keeps jobs in
-- (lib/order/read-order.lua) is FIFO by level: the plain list (its right
-- end runs next, and jobs put back go there, older than those behind
-- them), and each priority level of the priority set and of every group's
-- set (the level's first member). So the oldest job is one of those heads,
-- and the latency is the greatest of their ages. A plain queue costs one
-- LINDEX and one EXISTS; priorities and groups one ZRANGEBYSCORE per level
-- present per set, at most LATENCY_READS in all (past that, the latency is
-- of the levels read). Read when asked: nothing is written per job.
-- Needs lib/common/edit-job-text.lua (top_field) and lib/order/read-order.lua.
-- @include lib/order/read-order.lua
-- @include lib/common/edit-job-text.lua

local LATENCY_READS = 1000

-- 0 for a job without a readable enqueued_at, and never negative: a job
-- enqueued by a Redis clock ahead of this one's is 0 old.
local function job_age_ms(job, now_ms)
  local kind, text = top_field(job, 'enqueued_at')
  local at = kind == 'number' and tonumber(text) or nil
  if not at then return 0 end
  -- Sidekiq 8 writes integer epoch ms, Sidekiq 7 and tickq float seconds: the size tells (src/job/timestamp.ts).
  if math.abs(at) < 1e11 then at = at * 1000 end
  return math.max(0, math.floor(now_ms - at))
end

-- The greatest of `oldest` and the ages of the first job of each priority
-- level in the sorted set `key` (a level's scores lie within HALF of
-- -priority * LEVEL), reading at most `budget` levels. Returns it and the
-- budget left.
local function oldest_by_level(key, now_ms, oldest, budget)
  local from = '-inf'
  while budget > 0 do
    local first = redis.call('ZRANGEBYSCORE', key, from, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
    if #first == 0 then break end
    budget = budget - 1
    oldest = math.max(oldest, job_age_ms(first[1], now_ms))
    local level = math.floor((tonumber(first[2]) + order.HALF) / order.LEVEL)
    from = '(' .. string.format('%.0f', level * order.LEVEL + order.HALF)
  end
  return oldest, budget
end

-- Milliseconds the oldest waiting job of `queue` has waited at `now_ms`;
-- 0 when the queue is empty.
local function queue_latency_ms(queue, now_ms)
  local oldest = 0
  local next_plain = redis.call('LINDEX', order.list_key(queue), -1)
  if next_plain then oldest = job_age_ms(next_plain, now_ms) end
  if redis.call('EXISTS', order.prio_key(queue), order.ring_key(queue)) == 0 then return oldest end
  local budget
  oldest, budget = oldest_by_level(order.prio_key(queue), now_ms, oldest, LATENCY_READS)
  for _, group in ipairs(redis.call('LRANGE', order.ring_key(queue), 0, -1)) do
    if group ~= order.UNGROUPED then
      oldest, budget = oldest_by_level(order.group_key(queue, group), now_ms, oldest, budget)
    end
  end
  return oldest
end
