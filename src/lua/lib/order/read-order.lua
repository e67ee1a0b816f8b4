-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Where a job waits in its queue (src/order/README.md). A plain job waits in
-- the list `queue:NAME`, as Sidekiq lays it out; a job with a priority
-- (`tickq_priority`, a non-zero integer) waits in the sorted set
-- `prio:NAME`, and a job of a group (`tickq_group`) in `group:NAME GROUP`
-- (queue names hold no whitespace, so the space cannot be confused), with
-- the queue's non-empty groups in the ring `groups:NAME`, taken in turn.
-- A score is -priority * LEVEL plus a sequence number, so a higher priority
-- sorts first and equal priorities keep FIFO; a job put back at the head of
-- its queue takes a negative number and sorts before its level's others.
-- Every function lives in the one table `order`: entry scripts include many
-- libraries and Lua allows a function 200 locals.
-- @include lib/common/prefix-keys.lua
-- @include lib/common/edit-job-text.lua
local order = {}
-- |priority| ≤ 1,000 (src/order/priority.ts) and a sequence below LEVEL / 2:
-- 2,001 levels of 2^42 stay within the 2^53 integers a double holds exactly.
order.LEVEL = 4398046511104
order.HALF = 2199023255552
-- In the ring, the turn of the queue's jobs that have no group.
order.UNGROUPED = ''

function order.list_key(queue) return P .. 'queue:' .. queue end
function order.prio_key(queue) return P .. 'prio:' .. queue end
function order.ring_key(queue) return P .. 'groups:' .. queue end
function order.group_key(queue, group) return P .. 'group:' .. queue .. ' ' .. group end

-- A job's priority (0 when none) and group (nil when none), or nil for a
-- plain job. The cheap search keeps a plain job's cost to two scans of its
-- text; a match is confirmed at the top level (a nested key is not ours).
function order.of(job)
  local has_priority = string.find(job, '"tickq_priority"', 1, true)
  local has_group = string.find(job, '"tickq_group"', 1, true)
  if not has_priority and not has_group then return nil end
  local priority, group = 0, nil
  if has_priority then
    local kind, text = top_field(job, 'tickq_priority')
    local n = kind == 'number' and tonumber(text)
    if n and n == math.floor(n) then priority = math.max(-1000, math.min(1000, n)) end
  end
  if has_group then
    local kind, raw = top_field(job, 'tickq_group')
    if kind == 'string' then group = unescaped(raw) end
    if group == '' then group = nil end
  end
  if priority == 0 and not group then return nil end
  return priority, group
end

-- The score of the next job of `priority`: at the tail of its level, or at
-- its head (a job put back).
function order.score(priority, at_head)
  local n = redis.call('INCR', P .. 'order:seq')
  return -priority * order.LEVEL + (at_head and -n or n)
end
