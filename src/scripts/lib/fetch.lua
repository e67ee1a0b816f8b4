-- Fetch pass: moves up to `batch` jobs from the heads (right ends) of
-- `queue:NAME` into this tick's `inproc:TICK:NAME` lists, so a fetched job
-- is always somewhere in Redis; two ticks never get the same job. Per queue
-- it is one LRANGE + LTRIM + LPUSH, leaving the inproc list as a job-by-job
-- LMOVE RIGHT→LEFT would: the newest fetched at its left end.
--
-- A queue in the `paused` set is skipped; its jobs stay where they are.
-- `queues` is the strict order. `picks`, when given, holds for each slot the
-- index of the queue drawn for it (by weight, in JS, as Sidekiq's weighted
-- fetch draws per job); slots whose queue runs dry are filled in strict order.
-- Flow jobs (lib/flow.lua) are sorted as they are taken: one whose key is
-- full is parked and one over its rate limit deferred, and the queue is
-- read on past them, at most SET_ASIDE_MAX of them a call, so a head of
-- busy keys costs each parked job one move and never starves what follows.
-- Returns, per queue it took from: queue, {jobs, oldest first}, {counts}:
-- two numbers a job, how often a dead tick left it behind (`resurrections`)
-- and how often a tick's deadline interrupted it (`interruptions`), kept
-- apart so a job that is merely too long is never called poison. Empty
-- when neither hash exists (no job was ever put back). Second, when it met
-- flow jobs: {"JID JID …" of those that start, 1 if it stopped at
-- SET_ASIDE_MAX (more may wait behind) else 0, F: the k-th JID's fence is
-- F + k (lib/flow-admit.lua)}; nil when it met none.
local SET_ASIDE_MAX = 1000

local function fetch(tick, batch, queues, picks)
  local out = {}
  local left = batch
  local fences
  local set_aside = 0
  local counts, interruptions = P .. 'resurrections', P .. 'interruptions'
  local counted = redis.call('EXISTS', counts, interruptions) > 0

  local paused = {}
  if redis.call('EXISTS', P .. 'paused') == 1 then
    for i = 1, #queues do paused[i] = redis.call('SISMEMBER', P .. 'paused', queues[i]) == 1 end
  end

  -- Flow jobs among `items` are admitted or set aside; returns those that start.
  local function admit(items)
    for k = 1, #items do
      if is_flow(items[k]) then
        fences = fences or {}
        local kept, aside = flow().admit(tick, items, fences)
        set_aside = set_aside + aside
        return kept, aside
      end
    end
    return items, 0
  end

  -- Takes `count` jobs from the head of queue i; what flow sets aside is
  -- made up for by reading on (up to SET_ASIDE_MAX a call).
  local function take(i, count)
    if count <= 0 or paused[i] then return end
    local queue = queues[i]
    local src = P .. 'queue:' .. queue
    while count > 0 do
      local items = redis.call('LRANGE', src, -count, -1)
      local read = #items
      if read == 0 then return end
      redis.call('LTRIM', src, 0, -read - 1)
      local aside
      items, aside = admit(items)
      local got = #items
      if got > 0 then
        local oldest_first, resurrections = {}, {}
        for k = got, 1, -1 do
          oldest_first[#oldest_first + 1] = items[k]
          if counted then
            resurrections[#resurrections + 1] = tonumber(redis.call('HGET', counts, items[k])) or 0
            resurrections[#resurrections + 1] = tonumber(redis.call('HGET', interruptions, items[k])) or 0
          end
        end
        redis.call('LPUSH', inproc_key(tick, queue), unpack(oldest_first))
        out[#out + 1] = queue
        out[#out + 1] = oldest_first
        out[#out + 1] = resurrections
        left = left - got
      end
      if aside == 0 or read < count then return end
      count = math.min(aside, SET_ASIDE_MAX - set_aside)
    end
  end

  if #picks > 0 then
    local wanted = {}
    for slot = 1, math.min(batch, #picks) do
      wanted[picks[slot]] = (wanted[picks[slot]] or 0) + 1
    end
    for i = 1, #queues do take(i, wanted[i] or 0) end
  end
  for i = 1, #queues do
    if left <= 0 then break end
    take(i, left)
  end
  if not fences then return out, nil end
  -- One string of words (cheap to keep for replays, to send, to read), and
  -- whether it stopped at the cap: the queue may hold more behind what was set aside.
  return out, { table.concat(fences, ' '), set_aside >= SET_ASIDE_MAX and 1 or 0, flow_lib.first_fence() }
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
