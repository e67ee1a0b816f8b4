-- Metrics (src/metrics/): the optional section of an ack (lib/tick/ack-jobs.lua)
-- that counts runs, failures and durations per job name, and waits per
-- queue, in one hash per minute (`metrics:MINUTE`, expiring after the
-- retention) and in the all-time totals (`metrics:total`, for Prometheus).
-- The section rides on the ack's others count as a suffix " mN RETENTION":
-- N is the number of ack entries it describes, three arguments each, in
-- ack order: the job name ('' for an entry that did not run: put back or
-- unrunnable), its run time and its wait from enqueue to start, in ms, each
-- '' when not measured (a job pushed without `enqueued_at` has no wait):
-- its runs and failures still count.
-- Without the suffix nothing here runs: `metrics: false` costs nothing.
-- Only entries this call took out of the tick's lists count (not in
-- `missed`): a replayed ack finds its jobs gone and counts nothing again.
-- Fields: "j|NAME|r" runs, "j|NAME|f" failures, "j|NAME|ms" summed run time,
-- "j|NAME|bK" runs in bucket K; "q|QUEUE|ms" summed waits, "q|QUEUE|bK" waits in
-- bucket K (a histogram's count is the sum of its buckets: no field for it);
-- in the totals also "j|NAME|retried" and "j|NAME|dead". A name is read back
-- as everything between the first and the last '|', so it may hold '|'.

-- Upper bounds in ms of the buckets (src/metrics/buckets.ts holds the same
-- list); a value above the last is in bucket #METRIC_BOUNDS + 1 (+Inf).
local METRIC_BOUNDS = { 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 300000, 900000, 3600000 }

local function metric_bucket(ms)
  for k = 1, #METRIC_BOUNDS do
    if ms <= METRIC_BOUNDS[k] then return k end
  end
  return #METRIC_BOUNDS + 1
end

-- Splits " mN RETENTION" off the others count; nil when absent.
local function metrics_header(count_arg)
  local rest, n, retention = string.match(count_arg, '^(.-) m(%d+) (%d+)$')
  if not rest then return count_arg, nil end
  return rest, { n = tonumber(n), retention = tonumber(retention) }
end

-- Reads the section from ARGV[i]. `kinds` maps entry numbers to their outcome
-- ('s' succeeded, or lib/tick/ack-jobs.lua's code), `queues` to their queue;
-- `missed` lists the entries not settled. Returns the index after it.
local function record_runs(header, i, kinds, queues, missed, now_ms_value)
  local skip = {}
  for _, e in ipairs(missed) do skip[e] = true end
  local add = {}
  local function bump(field, by)
    add[field] = (add[field] or 0) + by
  end
  for entry = 1, header.n do
    local name, ran, waited = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
    i = i + 3
    local kind = kinds[entry]
    if name ~= '' and kind and not skip[entry] and kind ~= 'q' and kind ~= 'i' and kind ~= 'l' and kind ~= 'u' then
      local job = 'j|' .. name .. '|'
      bump(job .. 'r', 1)
      if kind ~= 's' then bump(job .. 'f', 1) end
      if ran then
        bump(job .. 'ms', ran)
        bump(job .. 'b' .. metric_bucket(ran), 1)
      end
      if waited then
        local queue = 'q|' .. queues[entry] .. '|'
        bump(queue .. 'ms', waited)
        bump(queue .. 'b' .. metric_bucket(waited), 1)
      end
      if kind == 'r' then bump(job .. 'retried', 1) end
      if kind == 'd' then bump(job .. 'dead', 1) end
    end
  end
  if next(add) == nil then return i end
  local minute = P .. 'metrics:' .. math.floor(now_ms_value / 60000)
  local total = P .. 'metrics:total'
  for field, by in pairs(add) do
    if string.sub(field, -7) ~= 'retried' and string.sub(field, -4) ~= 'dead' then
      redis.call('HINCRBY', minute, field, by)
    end
    redis.call('HINCRBY', total, field, by)
  end
  redis.call('EXPIRE', minute, header.retention)
  return i
end
