-- Unique claims (lib/flow/flow.lua): until-executed and coalesce keys taken at
-- enqueue, ended by success, death or the jobs API's delete, taken back by
-- its retry.
-- @include lib/common/prefix-keys.lua

local function flow_claims(F)
  local fkey = F.key

  -- A job whose descriptor cannot be read has none.
  local function claims(d)
    if not d then return {} end
    return { { 'claim', d.claim }, { 'wait', d.wait } }
  end

  -- The jid (escaped) of the job holding the unique claim a new job of
  -- this key would need, or nil: read first, so a duplicate writes nothing
  -- (not even its own jid in the id window).
  function F.holder(job)
    for _, c in ipairs(claims(F.read(job))) do
      if c[2] then
        local holder = redis.call('GET', fkey(c[1], c[2]))
        if holder then return holder end
      end
    end
    return nil
  end

  -- Enqueue of a flow job no claim holds (F.holder): claims its keys and,
  -- when it is pushed now, routes it (F.route). Returns the list to push
  -- it to.
  function F.enqueue(job, queue_list, now_push)
    local d, jid = F.read(job)
    for _, c in ipairs(claims(d)) do
      if c[2] then redis.call('SET', fkey(c[1], c[2]), jid) end
    end
    if not now_push then return queue_list end
    return F.route(job, queue_list, d)
  end

  -- Where a flow job pushed to a queue now goes (`d`: F.read(job), if
  -- read): to `queue_list`, or parked at once when a key of it is full.
  -- A job of one unique key and nothing else (shape `one`,
  -- while-executing) parks too when a job of its key waits in a queue for
  -- the slot (F.sent_waits): a burst waits parked, in order, not queued.
  function F.route(job, queue_list, d)
    d = d or F.read(job)
    if not d then return queue_list end
    local shape = F.descriptor(job)
    for _, lock in ipairs(d.locks) do
      if F.count(lock.key) >= lock.limit or (shape.one and F.sent_waits(lock.key, queue_list, shape)) then
        redis.call('HINCRBY', P .. 'flow:waiting', d.name, 1)
        redis.call('SADD', P .. 'flow:parked', lock.key)
        F.parked_now()
        return fkey('park', lock.key)
      end
    end
    return queue_list
  end

  -- A job the jobs API took out of the schedule (deleted, run now) is no
  -- longer deferred by its rate limit.
  local function undefer(d, jid)
    if d and d.rate then redis.call('ZREM', P .. 'flow:deferred:' .. d.name, jid) end
  end

  -- Admin delete of a job never run again: its claims end.
  function F.forget(job)
    local d, jid = F.read(job)
    undefer(d, jid)
    for _, c in ipairs(claims(d)) do
      if c[2] and redis.call('GET', fkey(c[1], c[2])) == jid then redis.call('DEL', fkey(c[1], c[2])) end
    end
  end

  -- Admin delete of a job parked on `key`: it waits no more.
  function F.unparked(job, key)
    local d = F.read(job)
    if d then redis.call('HINCRBY', P .. 'flow:waiting', d.name, -1) end
    if redis.call('LLEN', fkey('park', key)) == 0 then redis.call('SREM', P .. 'flow:parked', key) end
  end

  -- Admin retry or run-now of a job (from the dead or retry set): it holds
  -- its key again, unless a newer job of the key took it meanwhile.
  function F.reclaim(job)
    local d, jid = F.read(job)
    undefer(d, jid)
    for _, c in ipairs(claims(d)) do
      if c[2] then redis.call('SET', fkey(c[1], c[2]), jid, 'NX') end
    end
  end
end
