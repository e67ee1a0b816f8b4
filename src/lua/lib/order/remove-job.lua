-- @eager: it adds to `order` (lib/order/read-order.lua, @eager), which nothing would load it for.
-- Removes a queued job from wherever its queue holds it (lib/order/read-order.lua):
-- the plain list, the priority set, or its group's set (a group left empty
-- leaves the ring, and a ring left with only the ungrouped turn goes).
-- For admin deletes and cancels; `job` is the exact stored text. Returns 1
-- if it was there, else 0: run twice, the second run finds nothing.
-- @include lib/order/read-order.lua
function order.remove(queue, job)
  local priority, group = order.of(job)
  if not priority then return redis.call('LREM', order.list_key(queue), 1, job) end
  if not group then return redis.call('ZREM', order.prio_key(queue), job) end
  local removed = redis.call('ZREM', order.group_key(queue, group), job)
  if removed == 1 then order.forget_group_if_empty(queue, group) end
  return removed
end

-- Takes an emptied group out of its queue's ring (and the ring away once
-- only the ungrouped turn is left); a group that still has jobs stays.
function order.forget_group_if_empty(queue, group)
  if redis.call('EXISTS', order.group_key(queue, group)) == 1 then return end
  local ring = order.ring_key(queue)
  redis.call('LREM', ring, 1, group)
  if redis.call('LLEN', ring) == 1 and redis.call('LINDEX', ring, 0) == order.UNGROUPED then redis.call('DEL', ring) end
end
