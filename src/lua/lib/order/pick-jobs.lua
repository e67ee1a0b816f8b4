-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Takes a queue's jobs in order at fetch (lib/order/read-order.lua): its
-- groups in turn, one job a turn, the jobs without a group taking one turn
-- of the ring like a group; within a group, and among the jobs without one,
-- a higher priority first (plain jobs are priority 0) and FIFO among equals.
-- A queue with neither priorities nor groups is never read here: fetch
-- asks `order.any` (one EXISTS) and takes from its list as before.
-- A pick is { job, key it came from, score (nil: the plain list), group }.
-- @include lib/order/read-order.lua
-- @include lib/order/queue-job.lua

function order.any(queue)
  return redis.call('EXISTS', order.prio_key(queue), order.ring_key(queue)) > 0
end

local function picks_from_set(key, rows, picked, group)
  for k = 1, #rows, 2 do picked[#picked + 1] = { rows[k], key, rows[k + 1], group } end
  return #rows / 2
end

-- Up to `n` jobs without a group: priority > 0, then the plain list, then
-- priority < 0. Returns how many it took.
function order.take_ungrouped(queue, n, picked)
  local prio, list = order.prio_key(queue), order.list_key(queue)
  local took = 0
  local function from_prio(max)
    if n - took <= 0 then return end
    local rows = redis.call('ZRANGEBYSCORE', prio, '-inf', max, 'WITHSCORES', 'LIMIT', 0, n - took)
    if #rows == 0 then return end
    redis.call('ZREMRANGEBYRANK', prio, 0, #rows / 2 - 1)
    took = took + picks_from_set(prio, rows, picked)
  end
  from_prio('(' .. string.format('%.0f', -order.HALF))
  if n - took > 0 then
    local items = redis.call('LRANGE', list, -(n - took), -1)
    if #items > 0 then
      redis.call('LTRIM', list, 0, -#items - 1)
      for k = #items, 1, -1 do picked[#picked + 1] = { items[k], list } end
      took = took + #items
    end
  end
  from_prio('+inf')
  return took
end

-- Takes one job of `group` into `picked`; the group, just rotated to the
-- ring's left end, leaves it if that was its last job. Returns how many it
-- took (0 or 1) and the ring's length.
local function take_from_group(queue, group, ring, picked, len)
  local key = order.group_key(queue, group)
  local took = picks_from_set(key, redis.call('ZPOPMIN', key), picked, group)
  if redis.call('EXISTS', key) == 0 then
    redis.call('LPOP', ring)
    len = len - 1
    if len == 1 and redis.call('LINDEX', ring, 0) == order.UNGROUPED then
      redis.call('DEL', ring)
      len = 0
    end
  end
  return took, len
end

-- Up to `n` picks of `queue`, in the order they are to start. A turn
-- rotates the ring (one LMOVE); its length is kept here, as this script
-- alone changes it while it runs.
function order.pick(queue, n)
  local picked = {}
  local ring = order.ring_key(queue)
  local len = redis.call('LLEN', ring)
  local ungrouped_empty = false
  local idle = 0
  while n > 0 and len > 0 and idle < len do
    local turn = redis.call('LMOVE', ring, ring, 'RIGHT', 'LEFT')
    local took = 0
    if turn == order.UNGROUPED then
      if not ungrouped_empty then
        took = order.take_ungrouped(queue, 1, picked)
        ungrouped_empty = took == 0
      end
      if len == 1 then
        redis.call('DEL', ring)
        len = 0
      end
    else
      took, len = take_from_group(queue, turn, ring, picked, len)
    end
    n = n - took
    if took > 0 then idle = 0 else idle = idle + 1 end
  end
  if n > 0 and not ungrouped_empty then order.take_ungrouped(queue, n, picked) end
  return picked
end

-- Puts back where they came from the picks whose jobs are unread[1..n]
-- (the newest picks: flow control read no further), the oldest of them
-- ending nearest the head, each with its score (a group emptied by the pick
-- rejoins the ring).
function order.put_back(queue, picked, unread, n)
  local back = {}
  for k = 1, n do back[unread[k]] = true end
  for k = #picked, 1, -1 do
    local job, key, score, group = picked[k][1], picked[k][2], picked[k][3], picked[k][4]
    if back[job] then
      if not score then
        redis.call('RPUSH', key, job)
      elseif group then
        order.add_to_group(queue, group, score, job)
      else
        redis.call('ZADD', key, score, job)
      end
    end
  end
end
