-- The fetch's second step (lib/flow/admit.lua): for each classified job,
-- oldest first, start it now, park it on a full key, defer it past a rate
-- limit, or send it to the dead set. A decision is written into `call` (its
-- slots, parks and counts) at once, so the next job of the same key sees it;
-- lib/flow/admit.lua writes what is left in one go.
-- @include lib/common/prefix-keys.lua
-- @include lib/common/edit-job-text.lua
-- @include lib/tick/restart-hold.lua

local function flow_decide(F)
  local fkey = F.key
  local UNREADABLE = 'its flow control descriptor (tickq_flow) cannot be read'

  local function add(counts, name, n)
    counts[name] = (counts[name] or 0) + n
  end

  -- The due ms of a job over its rate limit, or nil when it may start now.
  -- A sliding log: at most LIMIT starts in any PERIOD. Deferred jobs are
  -- spread a period/limit apart so they do not all come back at once.
  local function rate_due(rate, now)
    local log = fkey('rate', rate.key)
    redis.call('ZREMRANGEBYSCORE', log, '-inf', now - rate.period)
    local n = redis.call('ZCARD', log)
    if n < rate.limit then return nil end
    local oldest_counted = redis.call('ZRANGE', log, n - rate.limit, n - rate.limit, 'WITHSCORES')
    local free_at = tonumber(oldest_counted[2]) + rate.period
    local hint = fkey('rnext', rate.key)
    local last = tonumber(redis.call('GET', hint))
    if last and last >= free_at then free_at = last + math.ceil(rate.period / rate.limit) end
    redis.call('SET', hint, free_at, 'PX', free_at - now + rate.period)
    return free_at
  end

  local function park(call, class, text, key)
    local list = call.parked[key]
    if not list then
      list = {}
      call.parked[key] = list
    end
    list[#list + 1] = text
    add(call.parked_by_name, class.shape.name, 1)
  end

  -- Each start takes the next fence (ctx.fence): the client numbers the
  -- reply's flow jobs in the same order (src/flow/fences.ts).
  local function next_fence(call)
    call.fence = call.fence + 1
    return call.fence
  end

  -- After a Redis restart no slot or unique key is taken until the hold ends
  -- (lib/tick/restart-hold.lua): the job waits in the schedule until then, as
  -- one over its rate limit does. It may be the job sent on for its keys: they
  -- must not wait for it (F.unsend), or it would park behind itself when it
  -- comes back (F.route); it takes its place again then. Whether it was held back.
  local function held_back(call, class, text)
    if not restart.held(call.now) then return false end
    redis.call('ZADD', P .. 'schedule', restart.check(call.now).hold_until / 1000, text)
    if class.kind == 'unique' then call.unsent[#call.unsent + 1] = call.view.singles[class.slot] end
    for _, lock in ipairs(class.kind == 'other' and class.whole.locks or {}) do
      call.unsent[#call.unsent + 1] = lock.key
    end
    return true
  end

  local decide = {}

  function decide.plain()
    return true
  end

  function decide.malformed(call, _, text)
    local now_sec = call.now / 1000
    redis.call('ZADD', P .. 'dead', now_sec, unroutable_entry(text, UNREADABLE, now_sec))
    return false
  end

  -- A key this call took is found held too: a later job of it parks.
  function decide.unique(call, class, text)
    if held_back(call, class, text) then return false end
    local view, k = call.view, class.slot
    if F.held1(view, k) then
      park(call, class, text, view.singles[k])
      return false
    end
    next_fence(call)
    F.take(view, view.singles[k], call.tick)
    add(call.slots_by_name, class.shape.name, 1)
    return true
  end

  local function defer(call, class, text, due)
    redis.call('ZADD', P .. 'schedule', due / 1000, text)
    local deferred = P .. 'flow:deferred:' .. class.shape.name
    redis.call('ZREMRANGEBYSCORE', deferred, '-inf', call.now)
    redis.call('ZADD', deferred, due, class.jid)
  end

  -- Takes every slot of the job, logs its start against its rate limit and
  -- frees the coalesce wait claim it held while queued.
  local function start_other(call, class)
    local whole, jid = class.whole, class.jid
    local fence = next_fence(call)
    for _, lock in ipairs(whole.locks) do
      F.take(call.view, lock.key, lock.unique and call.tick or call.tick .. ' ' .. jid, fence)
    end
    if whole.rate then
      local log = fkey('rate', whole.rate.key)
      redis.call('ZADD', log, call.now, fence_text(fence))
      redis.call('PEXPIRE', log, whole.rate.period)
    end
    local wait = whole.wait and fkey('wait', whole.wait)
    if wait and redis.call('GET', wait) == jid then redis.call('DEL', wait) end
    if #whole.locks > 0 then add(call.slots_by_name, whole.name, #whole.locks) end
  end

  function decide.other(call, class, text)
    local locks = class.whole.locks
    -- An until-executed claim too: a rollback may have forgotten the claim a running job holds.
    if (#locks > 0 or class.whole.claim) and held_back(call, class, text) then return false end
    for _, lock in ipairs(locks) do
      if F.full(call.view, lock.key, lock.limit) then
        park(call, class, text, lock.key)
        -- It may be the job sent on for another key of it: that key must
        -- not wait for it (F.unsend).
        for _, each in ipairs(locks) do call.unsent[#call.unsent + 1] = each.key end
        return false
      end
    end
    local due = class.whole.rate and rate_due(class.whole.rate, call.now)
    if due then
      defer(call, class, text, due)
      return false
    end
    start_other(call, class)
    return true
  end

  -- Whether the job `text` of class `class` (lib/flow/chunk.lua) starts
  -- now; else it was set aside.
  function F.decide(call, class, text)
    return decide[class.kind](call, class, text)
  end

  -- Past a full batch nothing starts, but a job read already need not go
  -- back to the queue only for the next fetch to park it: a job of a unique
  -- key another live tick holds parks now, unless a job of its key went
  -- back before it (the key's order). Whether it parked.
  function F.park_past_batch(call, class, text)
    local view = call.view
    if class.kind == 'unique' and not call.went_back[class.slot] and F.held_live(view, class.slot) then
      park(call, class, text, view.singles[class.slot])
      return true
    end
    if class.kind == 'unique' then call.went_back[class.slot] = true end
    if class.kind == 'other' then
      for _, lock in ipairs(class.whole.locks) do
        if lock.unique then call.went_back[view.index[lock.key]] = true end
      end
    end
    return false
  end
end
