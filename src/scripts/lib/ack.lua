-- Ack pass: settles the jobs a tick executed. Each entry names its outcome:
--   (successes come grouped by queue, apart) dropped from inproc
--   r  failed, will retry: the updated job goes to `retry`, due in DELAY s
--   d  dead: the updated job goes to `dead` (capped in size and age)
--   q  not started: back to the head of its queue, not counted
--   i  interrupted at the deadline: back to the head, counted like a
--      resurrection so a job that never finishes in time ends dead
-- Every entry acts only if it was still in this tick's list: if the tick
-- lost its lease and a resurrector already put the job back, the ack does
-- nothing and the job runs again (at-least-once, never lost). Run twice,
-- the second run finds none of its jobs listed and does nothing; callers
-- also answer replays from lib/replay.lua before acking.
-- Fast path, only while the lease is held (`whole_ok`): no resurrector has
-- touched the lists, so they hold exactly the jobs fetched and not yet
-- acked; a list as long as the entries naming it holds exactly those jobs,
-- and one DEL settles them all. Without the lease a list may have been
-- partly drained, and equal lengths would prove nothing.

local function trim_dead(now_sec, max_size, max_age)
  local dead = P .. 'dead'
  local evicted = redis.call('ZREMRANGEBYSCORE', dead, '-inf', '(' .. (now_sec - max_age))
  local size = redis.call('ZCARD', dead)
  if size > max_size then
    evicted = evicted + redis.call('ZREMRANGEBYRANK', dead, 0, size - max_size - 1)
  end
  if evicted > 0 then redis.call('INCRBY', P .. 'stat:dead_evicted', evicted) end
  return evicted
end

local STATS_TTL = 5 * 365 * 86400

local function bump(name, by, day)
  if by == 0 then return end
  redis.call('INCRBY', P .. 'stat:' .. name, by)
  local daily = P .. 'stat:' .. name .. ':' .. day
  redis.call('INCRBY', daily, by)
  redis.call('EXPIRE', daily, STATS_TTL)
end

-- Reads, from ARGV[i]: the successes grouped by queue (n queues, then for
-- each: queue, count, that many jobs), then the other entries (n, then n
-- groups of kind, queue, job, new job, delay seconds). Successes are most
-- entries and carry one argument each: the client encodes far less.
-- Returns the index after them, the number of dead-set evictions, and the
-- numbers (from 1, successes first) of the entries no longer listed, which
-- this call did not settle: the tick fires no event for those.
local function ack(tick, i, now_ms_value, dead_max, dead_max_age, whole_ok)
  local now_sec = now_ms_value / 1000
  local counts = P .. 'resurrections'
  local counted = redis.call('EXISTS', counts) == 1
  local processed, failed, died = 0, 0, false
  local per_queue = {}
  local entry, missed = 0, {}

  local successes = {}
  for _ = 1, tonumber(ARGV[i]) do
    local queue, count = ARGV[i + 1], tonumber(ARGV[i + 2])
    successes[#successes + 1] = { queue, i + 3, count }
    per_queue[queue] = (per_queue[queue] or 0) + count
    i = i + 2 + count
  end
  i = i + 1
  local n = tonumber(ARGV[i])
  i = i + 1
  for k = 0, n - 1 do
    local queue = ARGV[i + k * 5 + 1]
    per_queue[queue] = (per_queue[queue] or 0) + 1
  end

  local whole = {}
  for queue, count in pairs(whole_ok and per_queue or {}) do
    local list = inproc_key(tick, queue)
    if redis.call('LLEN', list) == count then
      redis.call('DEL', list)
      whole[queue] = true
    end
  end
  local function taken(queue, job)
    return whole[queue] or redis.call('LREM', inproc_key(tick, queue), -1, job) == 1
  end

  for _, group in ipairs(successes) do
    local queue, first, count = group[1], group[2], group[3]
    for k = first, first + count - 1 do
      entry = entry + 1
      if taken(queue, ARGV[k]) then
        if counted then redis.call('HDEL', counts, ARGV[k]) end
        processed = processed + 1
      else
        missed[#missed + 1] = entry
      end
    end
  end

  for _ = 1, n do
    local kind, queue, job, updated, delay = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
    i = i + 5
    entry = entry + 1
    if not taken(queue, job) then
      missed[#missed + 1] = entry
    else
      if kind == 'q' or kind == 'i' then
        redis.call('RPUSH', P .. 'queue:' .. queue, job)
        if kind == 'i' then redis.call('HINCRBY', counts, job, 1) end
      else
        if counted then redis.call('HDEL', counts, job) end
        processed = processed + 1
        failed = failed + 1
        if kind == 'r' then
          redis.call('ZADD', P .. 'retry', now_sec + tonumber(delay), updated)
        else
          died = true
          redis.call('ZADD', P .. 'dead', now_sec, updated)
        end
      end
    end
  end
  local day = day_of(now_sec)
  bump('processed', processed, day)
  bump('failed', failed, day)
  local evicted = 0
  if died then evicted = trim_dead(now_sec, dead_max, dead_max_age) end
  return i, evicted, missed
end
