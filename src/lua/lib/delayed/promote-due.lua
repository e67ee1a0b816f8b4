-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Delayed pass: moves due jobs from the `schedule` and `retry` sorted sets
-- to the tail of their queues. Safe when two ticks run it at once, and when
-- replayed: a job is pushed only by the script whose ZREM removed it, and
-- scripts are atomic. As Sidekiq's poller re-pushes a job, the move sets
-- `enqueued_at` to now (Queue#latency and Web read it; a job scheduled with
-- perform_in has none yet), spliced into the text: every other byte is
-- kept. Its queue is read as text (lib/common/edit-job-text.lua), and a job that cannot
-- be routed goes to the dead set with the reason, never to another queue.
-- A flow job whose key is full, or a while-executing job whose key has a
-- job waiting in the queue for the slot, is parked instead, as at enqueue
-- (lib/flow/claims.lua F.route): duplicates due at once do not fill the
-- queue.
-- A debounced job leaving `schedule` closes its key's window
-- (lib/debounce/close-window.lua).
-- @include lib/common/prefix-keys.lua
-- @include lib/debounce/close-window.lua
-- @include lib/order/read-order.lua
-- @include lib/flow/read.lua
-- @include lib/flow/flow.lua
-- @include lib/order/queue-job.lua
-- @include lib/common/edit-job-text.lua

-- Moves at most `limit` jobs due by `now_sec` from `set`; returns how many.
local function move_due(set, now_sec, limit)
  if limit <= 0 then return 0 end
  local due = redis.call('ZRANGEBYSCORE', set, '-inf', now_sec, 'LIMIT', 0, limit)
  local moved = 0
  local stamp = string.format('%.3f', now_sec)
  local from_schedule = set == P .. 'schedule'
  for _, job in ipairs(due) do
    if redis.call('ZREM', set, job) == 1 then
      if from_schedule then close_debounce_window(job) end
      local queue, why = queue_of(job)
      if queue then
        local text, list = with_field(job, 'enqueued_at', stamp) or job, P .. 'queue:' .. queue
        if is_flow(text) then
          -- (the job sent on for its key, deferred by its rate limit, is still that job)
          flow().resend(job, text)
          list = flow().route(text, list)
        end
        redis.call('SADD', P .. 'queues', queue)
        if order.is_queue_list(queue, list) then order.push(queue, text, false) else redis.call('LPUSH', list, text) end
      else
        redis.call('ZADD', P .. 'dead', now_sec, unroutable_entry(job, why, now_sec))
      end
      moved = moved + 1
    end
  end
  return moved
end

-- Returns moved, more (1 when a set still had due jobs past the limit).
local function promote_due(now_sec, limit)
  local from_delayed = move_due(P .. 'schedule', now_sec, limit)
  local from_retry = move_due(P .. 'retry', now_sec, limit - from_delayed)
  local moved = from_delayed + from_retry
  local more = 0
  if moved == limit and limit > 0 then
    if redis.call('ZCOUNT', P .. 'schedule', '-inf', now_sec) > 0
      or redis.call('ZCOUNT', P .. 'retry', '-inf', now_sec) > 0 then
      more = 1
    end
  end
  return moved, more
end
