-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Puts a job where its queue holds it (lib/order/read-order.lua): every
-- path that queues a job (enqueue, a due retry or schedule, a put-back, a
-- resurrection, a parked flow job sent on, an admin retry) comes through
-- here, so a job keeps its priority and group wherever it comes back from.
-- A plain job costs what it did: one push onto `queue:NAME`.
-- @include lib/order/read-order.lua

-- Queues `job` of `queue` at the tail, or at the head (`at_head`: a job put
-- back runs before those queued after it).
function order.push(queue, job, at_head)
  local priority, group = order.of(job)
  if not priority then
    redis.call(at_head and 'RPUSH' or 'LPUSH', order.list_key(queue), job)
    return
  end
  local score = string.format('%.0f', order.score(priority, at_head))
  if not group then
    redis.call('ZADD', order.prio_key(queue), score, job)
    return
  end
  order.add_to_group(queue, group, score, job)
end

-- A group joins the ring when its set stops being empty, and leaves it at
-- the fetch that empties it: the ring names exactly the non-empty groups,
-- and holds the turn of the jobs without a group while it exists.
function order.add_to_group(queue, group, score, job)
  local key = order.group_key(queue, group)
  if redis.call('ZADD', key, score, job) == 1 and redis.call('ZCARD', key) == 1 then
    local ring = order.ring_key(queue)
    if redis.call('EXISTS', ring) == 0 then redis.call('LPUSH', ring, order.UNGROUPED) end
    redis.call('LPUSH', ring, group)
  end
end

-- Whether `list` is the plain list of `queue` (not a flow park list).
function order.is_queue_list(queue, list)
  return list == order.list_key(queue)
end
