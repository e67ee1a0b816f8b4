-- Removes a queued job from wherever its queue holds it (lib/order/read-order.lua):
-- the plain list, the priority set, or its group's set (a group left empty
-- leaves the ring, and a ring left with only the ungrouped turn goes).
-- For admin deletes and cancels; `job` is the exact stored text. Returns 1
-- if it was there, else 0: run twice, the second run finds nothing.
function order.remove(queue, job)
  local priority, group = order.of(job)
  if not priority then return redis.call('LREM', order.list_key(queue), 1, job) end
  if not group then return redis.call('ZREM', order.prio_key(queue), job) end
  local key = order.group_key(queue, group)
  local removed = redis.call('ZREM', key, job)
  if removed == 1 and redis.call('EXISTS', key) == 0 then
    local ring = order.ring_key(queue)
    redis.call('LREM', ring, 1, group)
    if redis.call('LLEN', ring) == 1 and redis.call('LINDEX', ring, 0) == order.UNGROUPED then redis.call('DEL', ring) end
  end
  return removed
end
