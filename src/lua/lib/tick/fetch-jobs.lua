-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Fetch pass: moves up to `batch` jobs from the heads (right ends) of
-- `queue:NAME` into this tick's `inproc:TICK:NAME` lists, so a fetched job
-- is always somewhere in Redis; two ticks never get the same job. Per queue
-- it is one LRANGE + LTRIM + LPUSH, leaving the inproc list as a job-by-job
-- LMOVE RIGHT→LEFT would: the newest fetched at its left end.
--
-- A queue in the `paused` set is skipped; its jobs stay where they are.
-- A queue with priorities or groups is taken in their order instead
-- (lib/order/pick-jobs.lua). One EXISTS over `paused` and every queue's
-- priority and group keys tells a call that none applies (the common case:
-- it then looks no further); only when one does is each asked apart. Only
-- a flow admit can create such a key during the fetch (a parked job sent on
-- when a dead holder's slot is freed): after the fetch met a flow job, each
-- take asks again. A replay is answered from the kept reply and runs none of
-- this; a concurrent tick's script never interleaves with this one.
-- `counted`: false when the caller knows no per-job count hash exists (the
-- step's ack just read them: lib/tick/ack-jobs.lua), which spares an EXISTS.
-- `queues` is the strict order. `picks`, when given, holds for each slot the
-- index of the queue drawn for it (by weight, in JS, as Sidekiq's weighted
-- fetch draws per job); slots whose queue runs dry are filled in strict order.
-- Flow jobs (lib/flow/flow.lua) are sorted as they are taken: one whose key is
-- full is parked and one over its rate limit deferred, and the queue is
-- read on past them, at most SET_ASIDE_MAX of them a call, so a head of
-- busy keys costs each parked job one move and never starves what follows.
-- Returns, per queue it took from: queue, {jobs, oldest first}, {counts}, place (how many jobs
-- its list took before them, for an ack that names them by it: lib/tick/ack-jobs.lua), the
-- counts:
-- four numbers a job, how often its tick died while it ran alone
-- (`resurrections`), how often a tick's deadline interrupted it
-- (`interruptions`), kept apart so a job that is merely too long is never
-- called poison, 1 if a dead tick left it behind (`suspects`: it must
-- run alone, lib/tick/resurrect-dead-ticks.lua), and how often it was
-- stopped for a lease in doubt (`doubts`, lib/tick/ack-jobs.lua). Empty
-- when no such hash exists (no job
-- was ever put back). Second, when it met
-- flow jobs: {1 if it stopped at SET_ASIDE_MAX (more may wait behind) else
-- 0, F: the k-th flow job of the reply, in its order, has fence F + k
-- (lib/flow/admit.lua), 1 if jobs wait parked on keys (an ack of a flow job
-- may send one back to its queue: the tick fetches again) else 0}; nil when
-- it met none, unless it stopped at SET_ASIDE_MAX on expired jobs alone: then
-- {1, 0, 0}. Expired jobs (lib/expiry/expire-fetched.lua) are recorded as
-- they are taken and count as set aside.
-- @include lib/common/prefix-keys.lua
-- @include lib/expiry/expire-fetched.lua
-- @include lib/order/read-order.lua
-- @include lib/flow/read.lua
-- @include lib/flow/flow.lua
-- @include lib/order/pick-jobs.lua
local SET_ASIDE_MAX = 2000

local function fetch(tick, batch, queues, picks, counted)
  local out = {}
  local left = batch
  local flowed = false
  local set_aside = 0
  local counts, interruptions, suspects, doubts = P .. 'resurrections', P .. 'interruptions', P .. 'suspects', P .. 'doubts'
  if counted ~= false then counted = redis.call('EXISTS', counts, interruptions, suspects, doubts) > 0 end

  -- A flow job opens with {"tickq_flow" (lib/flow/read.lua) and an expiring one
  -- with {"tickq_expires_at" (lib/expiry/expire-fetched.lua); a plain job opens
  -- with another field: one byte a job tells a chunk of plain jobs, which then
  -- goes past both checks without a call a job for each. (Inside fetch: begin's
  -- main function has no room for another local.)
  local function any_tickq_head(items)
    local byte, t = string.byte, 116 -- 't', the third byte of '{"t'
    for k = 1, #items do
      if byte(items[k], 3) == t then return true end
    end
    return false
  end

  local paused, ordered = {}, {}
  local special = { P .. 'paused' }
  for i = 1, #queues do
    special[#special + 1] = order.prio_key(queues[i])
    special[#special + 1] = order.ring_key(queues[i])
  end
  if redis.call('EXISTS', unpack(special)) > 0 then
    local any_paused = redis.call('EXISTS', P .. 'paused') == 1
    for i = 1, #queues do
      paused[i] = any_paused and redis.call('SISMEMBER', P .. 'paused', queues[i]) == 1
      ordered[i] = order.any(queues[i])
    end
  end

  -- Up to `room` jobs of `items` (LRANGE order), oldest first, start:
  -- flow jobs are admitted or set aside. Returns those that start, oldest
  -- first, how many were set aside, and how many of the newest were not
  -- looked at (items[1] to items[unread]) once `room` started.
  local function admit(items, room, plain)
    for k = 1, plain and 0 or #items do
      if is_flow(items[k]) then
        flowed = true
        local kept, aside, unread = flow().admit(tick, items, room)
        set_aside = set_aside + aside
        return kept, aside, unread
      end
    end
    local unread = math.max(#items - room, 0)
    local oldest_first = {}
    for k = #items, unread + 1, -1 do oldest_first[#oldest_first + 1] = items[k] end
    return oldest_first, 0, unread
  end

  -- Hands `oldest_first` (jobs of `queue` taken from Redis) to this tick:
  -- into its inproc list and the reply, with their counts.
  local function deliver(queue, oldest_first)
    local got = #oldest_first
    if got == 0 then return end
    local resurrections = {}
    if counted then
      for k = 1, got do
        resurrections[#resurrections + 1] = tonumber(redis.call('HGET', counts, oldest_first[k])) or 0
        resurrections[#resurrections + 1] = tonumber(redis.call('HGET', interruptions, oldest_first[k])) or 0
        resurrections[#resurrections + 1] = redis.call('HEXISTS', suspects, oldest_first[k])
        resurrections[#resurrections + 1] = tonumber(redis.call('HGET', doubts, oldest_first[k])) or 0
      end
    end
    local len = redis.call('LPUSH', inproc_key(tick, queue), unpack(oldest_first))
    -- The group's place: how many jobs the tick's list of this queue took before it. The count
    -- is kept in the lease hash (`pushed:QUEUE`), with the jobs cut from its tail by place
    -- (`cut:QUEUE`, lib/tick/ack-jobs.lua's ack by place); a list that was empty holds this
    -- group alone, from its place on.
    local lease = P .. 'tick:' .. tick
    local place = redis.call('HINCRBY', lease, 'pushed:' .. queue, got) - got
    if len == got then redis.call('HSET', lease, 'cut:' .. queue, string.format('%d', place)) end
    out[#out + 1] = queue
    out[#out + 1] = oldest_first
    out[#out + 1] = resurrections
    out[#out + 1] = place
    left = left - got
  end

  -- Takes `count` jobs of a queue with priorities or groups, in their
  -- order (lib/order/pick-jobs.lua); what flow sets aside is made up for
  -- by picking on, up to SET_ASIDE_MAX a call.
  local function take_in_order(queue, count)
    while count > 0 do
      local wanted = count
      local picked = order.pick(queue, count)
      if #picked == 0 then return end
      local items = {}
      for k = #picked, 1, -1 do items[#items + 1] = picked[k][1] end
      -- Expired jobs are recorded, never started, as from a plain list.
      local expired
      items, expired = drop_expired(items)
      set_aside = set_aside + expired
      local oldest_first, aside, unread = admit(items, count)
      aside = aside + expired
      if unread > 0 then order.put_back(queue, picked, items, unread) end
      deliver(queue, oldest_first)
      count = count - #oldest_first
      if aside == 0 or #picked < wanted or set_aside >= SET_ASIDE_MAX then return end
    end
  end

  -- Takes `count` jobs from the head of queue i; what flow sets aside is
  -- made up for by reading on (up to SET_ASIDE_MAX a call), in chunks that
  -- double while whole chunks are set aside (a head of 10,000 duplicates
  -- of a busy key costs a few LRANGEs, not one a batch); what a chunk holds
  -- past the jobs wanted goes back to the head unread, in its order.
  local function take(i, count)
    if count <= 0 or paused[i] then return end
    local queue = queues[i]
    -- A flow admit may have sent a parked job on into this queue's priority
    -- or group set since the fetch began (a dead holder's slot freed,
    -- lib/flow/slots.lua): once the fetch met flow jobs, it asks again.
    if ordered[i] or (flowed and order.any(queue)) then return take_in_order(queue, count) end
    local src = P .. 'queue:' .. queue
    local chunk = count
    while count > 0 and chunk > 0 do
      local chunk_items = redis.call('LRANGE', src, -chunk, '-1')
      local read = #chunk_items
      if read == 0 then return end
      redis.call('LTRIM', src, '0', -read - 1)
      -- Expired jobs are recorded, never started; they count as set aside,
      -- so the fetch reads on to fill its batch (lib/expiry/expire-fetched.lua).
      local expired, plain = 0, not any_tickq_head(chunk_items)
      if not plain then chunk_items, expired = drop_expired(chunk_items) end
      set_aside = set_aside + expired
      local oldest_first, aside, unread = admit(chunk_items, count, plain)
      aside = aside + expired
      if unread > 0 then redis.call('RPUSH', src, unpack(chunk_items, 1, unread)) end
      deliver(queue, oldest_first)
      count = count - #oldest_first
      if aside == 0 or read < chunk then return end
      chunk = math.min(math.max(count, 2 * read), SET_ASIDE_MAX - set_aside)
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
  -- Stopped at the cap on expired jobs alone: the flow part says so (fence
  -- unused: the reply holds no flow job).
  if not flowed and set_aside >= SET_ASIDE_MAX then return out, { 1, 0, 0 } end
  if not flowed then return out, nil end
  -- Whether it stopped at the cap (the queue may hold more behind what was
  -- set aside), and the fence before the first flow job it returns.
  return out, { set_aside >= SET_ASIDE_MAX and 1 or 0, flow_lib.first_fence(), redis.call('EXISTS', P .. 'flow:parked') }
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
