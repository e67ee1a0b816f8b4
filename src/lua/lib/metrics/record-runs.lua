-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Metrics (src/metrics/): the optional section of an ack (lib/tick/ack-jobs.lua)
-- that counts runs, failures and durations per job name, and waits per
-- queue, in one hash per minute (`metrics:MINUTE`, expiring after the
-- retention) and in the all-time totals (`metrics:total`, for Prometheus).
-- The section rides on the ack's others count as a suffix " mG RETENTION".
-- The successes come first as G groups of 7 arguments (src/metrics/section.ts):
-- job name, queue, how many entries (the next ones in ack order, from entry
-- 1), summed run time, summed wait (ms), and the duration and wait buckets as
-- "K N K N …". Then 3 arguments per other entry, in order: its job name ('' for
-- one that did not run: put back, unrunnable), its run time and its wait in
-- ms, each '' when not measured (a job pushed without `enqueued_at` has no
-- wait). Without the suffix nothing here runs: `metrics: false` costs nothing.
-- Only entries this call took out of the tick's lists count (not in
-- `missed`): a replayed ack finds its jobs gone and counts nothing again.
-- Nor do entries it settled as cancelled (`cancelled`: a cancel answered
-- before the ack wins over what the run said, lib/tick/ack-jobs.lua): a
-- cancelled job is no run, as `stat:processed` does not count it either. A
-- group with some entries missed or cancelled (the rare late ack of a tick
-- whose lease lapsed, a cancel racing the ack) counts the runs of the others
-- but not their times, which come summed.
-- Fields: "j|NAME|r" runs, "j|NAME|f" failures, "j|NAME|ms" summed run time,
-- "j|NAME|bK" runs in bucket K; "q|QUEUE|ms" summed waits, "q|QUEUE|bK" waits in
-- bucket K (a histogram's count is the sum of its buckets: no field for it);
-- in the totals also "j|NAME|retried" and "j|NAME|dead". A name is read back
-- as everything between the first and the last '|', so it may hold '|'.
-- @include lib/common/prefix-keys.lua

-- Upper bounds in ms of the buckets (src/metrics/buckets.ts holds the same
-- list); a value above the last is in bucket #METRIC_BOUNDS + 1 (+Inf).
local METRIC_BOUNDS = { 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 300000, 900000, 3600000 }

local function metric_bucket(ms)
  for k = 1, #METRIC_BOUNDS do
    if ms <= METRIC_BOUNDS[k] then return k end
  end
  return #METRIC_BOUNDS + 1
end

-- Splits " mG RETENTION" off the others count; nil when absent.
local function metrics_header(count_arg)
  local rest, groups, retention = string.match(count_arg, '^(.-) m(%d+) (%d+)$')
  if not rest then return count_arg, nil end
  -- The retention goes to EXPIRE as the text it came in: Redis formats a number argument.
  return rest, { groups = tonumber(groups), retention = retention }
end

-- Reads the section from ARGV[i]; `others`: how many other entries follow the
-- successes, `kinds` and `queues` their codes and queues by entry number;
-- `missed` lists the entries not settled, `cancelled` those settled as
-- cancelled. Returns the index after it.
local function record_runs(header, i, others, kinds, queues, missed, now_ms_value, cancelled)
  local skip = {}
  for _, e in ipairs(missed) do skip[e] = true end
  for _, e in ipairs(cancelled) do skip[e] = true end
  local skipped = #missed + #cancelled
  local jobs, waits = {}, {}
  local function job_of(name)
    local t = jobs[name]
    if not t then
      t = { r = 0, f = 0, ms = 0, retried = 0, dead = 0, b = {} }
      jobs[name] = t
    end
    return t
  end
  local function wait_of(queue)
    local w = waits[queue]
    if not w then
      w = { ms = 0, b = {} }
      waits[queue] = w
    end
    return w
  end
  local function add_pairs(b, text)
    for k, n in string.gmatch(text, '(%d+) (%d+)') do b[k] = (b[k] or 0) + tonumber(n) end
  end

  local entry = 0
  for _ = 1, header.groups do
    local name, queue, count = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
    local settled = count
    if skipped > 0 then
      for e = entry + 1, entry + count do
        if skip[e] then settled = settled - 1 end
      end
    end
    if name ~= '' and settled > 0 then
      local t = job_of(name)
      t.r = t.r + settled
      if settled == count then
        t.ms = t.ms + tonumber(ARGV[i + 3])
        add_pairs(t.b, ARGV[i + 5])
        if ARGV[i + 6] ~= '' then
          local w = wait_of(queue)
          w.ms = w.ms + tonumber(ARGV[i + 4])
          add_pairs(w.b, ARGV[i + 6])
        end
      end
    end
    entry = entry + count
    i = i + 7
  end

  for _ = 1, others do
    entry = entry + 1
    local name, kind = ARGV[i], kinds[entry]
    if name ~= '' and kind and not skip[entry] and kind ~= 'q' and kind ~= 'i' and kind ~= 'l' and kind ~= 'u' then
      local t = job_of(name)
      t.r = t.r + 1
      t.f = t.f + 1
      if kind == 'r' then t.retried = t.retried + 1 end
      if kind == 'd' then t.dead = t.dead + 1 end
      local ran, waited = tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
      if ran then
        t.ms = t.ms + ran
        local k = tostring(metric_bucket(ran))
        t.b[k] = (t.b[k] or 0) + 1
      end
      if waited then
        local w = wait_of(queues[entry])
        w.ms = w.ms + waited
        local k = tostring(metric_bucket(waited))
        w.b[k] = (w.b[k] or 0) + 1
      end
    end
    i = i + 3
  end

  if next(jobs) == nil then return i end
  local minute = P .. 'metrics:' .. string.format('%d', math.floor(now_ms_value / 60000))
  local total = P .. 'metrics:total'
  -- Each count goes to both hashes, and a batch's counts repeat (its runs, its bucket): each
  -- value is formatted once a call ('%d'), where a number argument costs Redis a '%.17g' a command.
  -- Only a whole number within 2^53, where '%d' writes what '%.17g' would: past 2^63 '%d' wraps to
  -- -2^63 (a wait from an `enqueued_at` far in the past), so any other goes as the number it is and
  -- Redis refuses what it cannot add, as it did before.
  local texts = {}
  local function add(field, by, both)
    if by == 0 then return end
    local text = by
    if by % 1 == 0 and by > -2 ^ 53 and by < 2 ^ 53 then
      text = texts[by]
      if not text then
        text = string.format('%d', by)
        texts[by] = text
      end
    end
    if both then redis.call('HINCRBY', minute, field, text) end
    redis.call('HINCRBY', total, field, text)
  end
  for name, t in pairs(jobs) do
    local prefix = 'j|' .. name .. '|'
    add(prefix .. 'r', t.r, true)
    add(prefix .. 'f', t.f, true)
    add(prefix .. 'ms', t.ms, true)
    add(prefix .. 'retried', t.retried, false)
    add(prefix .. 'dead', t.dead, false)
    for k, n in pairs(t.b) do add(prefix .. 'b' .. k, n, true) end
  end
  for queue, w in pairs(waits) do
    local prefix = 'q|' .. queue .. '|'
    add(prefix .. 'ms', w.ms, true)
    for k, n in pairs(w.b) do add(prefix .. 'b' .. k, n, true) end
  end
  redis.call('EXPIRE', minute, header.retention)
  return i
end
