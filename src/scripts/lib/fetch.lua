-- Fetch pass: moves up to `batch` jobs from the heads (right ends) of
-- `queue:NAME` into this tick's `inproc:TICK:NAME` lists with LMOVE, so a
-- fetched job is always somewhere in Redis; two ticks never get the same job.
--
-- `queues` is the strict order. `picks`, when given, holds for each slot the
-- index of the queue to try first (drawn by weight in JS, as Sidekiq's
-- weighted fetch does); an empty pick falls back to the strict order.
-- Returns a flat list: queue, job, resurrection count, for each job.
local function fetch(tick, batch, queues, picks)
  local out = {}
  local drained = {}
  local counts = P .. 'resurrections'
  local counted = redis.call('EXISTS', counts) == 1

  local function take(i)
    if drained[i] then return false end
    local queue = queues[i]
    local job = redis.call('LMOVE', P .. 'queue:' .. queue, inproc_key(tick, queue), 'RIGHT', 'LEFT')
    if not job then drained[i] = true end
    return job
  end

  for slot = 1, batch do
    local job, from = false, nil
    local first = picks[slot]
    if first then
      job = take(first)
      from = first
    end
    if not job then
      for i = 1, #queues do
        job = take(i)
        if job then from = i break end
      end
    end
    if not job then break end
    local resurrections = 0
    if counted then resurrections = tonumber(redis.call('HGET', counts, job)) or 0 end
    out[#out + 1] = queues[from]
    out[#out + 1] = job
    out[#out + 1] = resurrections
  end
  return out
end

-- Reads the fetch arguments starting at ARGV[i]: batch, n, n queue names,
-- m, m picks. Returns batch, queues, picks.
local function fetch_args(i)
  local batch = tonumber(ARGV[i])
  local n = tonumber(ARGV[i + 1])
  local queues, picks = {}, {}
  for k = 1, n do queues[k] = ARGV[i + 1 + k] end
  local m = tonumber(ARGV[i + 2 + n])
  for k = 1, m do picks[k] = tonumber(ARGV[i + 2 + n + k]) end
  return batch, queues, picks
end
