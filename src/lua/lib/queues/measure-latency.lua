-- Queue latency, as Sidekiq's Queue#latency reads it: how long the job that
-- runs next (the right end of the list: fetch takes from there, and jobs
-- put back go there) has waited since its `enqueued_at`. Read when asked:
-- one LINDEX and one field read per queue, nothing written per job.
-- Needs lib/common/edit-job-text.lua (top_field).

-- Milliseconds the oldest waiting job of `queue` has waited at `now_ms`;
-- 0 when the queue is empty or its next job carries no readable
-- enqueued_at (never negative: a job enqueued by a Redis clock ahead of
-- this one's is 0 old, not younger than that).
local function queue_latency_ms(queue, now_ms)
  local job = redis.call('LINDEX', P .. 'queue:' .. queue, -1)
  if not job then return 0 end
  local kind, text = top_field(job, 'enqueued_at')
  local at = kind == 'number' and tonumber(text) or nil
  if not at then return 0 end
  return math.max(0, math.floor(now_ms - at * 1000))
end
