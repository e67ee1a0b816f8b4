-- Slots and parking (lib/flow.lua): who holds a key, freeing a slot (by
-- its holder only, or once the holder's lease is gone), and moving parked
-- jobs back when a slot frees.

local function flow_slots(F)
  local fkey = F.key

  -- Whether any key has parked jobs (`flow:parked` names every key whose
  -- park list may hold some): asked once a call, so releases need no RPOP
  -- while nothing is parked anywhere. A park in this call sets it.
  local any_parked
  local function parked_somewhere()
    if any_parked == nil then any_parked = redis.call('SCARD', P .. 'flow:parked') > 0 end
    return any_parked
  end

  -- Moves the oldest job parked on `key` to the head of its queue.
  local function unpark(key)
    if not parked_somewhere() then return end
    local park = fkey('park', key)
    local job = redis.call('RPOP', park)
    if not job then return end
    if redis.call('LLEN', park) == 0 then redis.call('SREM', P .. 'flow:parked', key) end
    local d = F.read(job)
    local queue = F.uri_decode(d.queue)
    redis.call('SADD', P .. 'queues', queue)
    redis.call('RPUSH', P .. 'queue:' .. queue, job)
    redis.call('HINCRBY', P .. 'flow:waiting', d.name, -1)
  end

  -- Frees the slot `field` holds on `key`; returns 1 if it held one.
  local function release(key, field)
    if redis.call('HDEL', fkey('held', key), field) == 0 then return 0 end
    unpark(key)
    return 1
  end

  -- Slots of `key` held by ticks whose lease is gone are freed (at most
  -- once per key and call: `swept`). Their names are not known here; the
  -- name's count is corrected when the dead tick is resurrected (F.settle
  -- frees nothing then, and counts the slot as gone).
  local function sweep(key, swept)
    if swept[key] then return end
    swept[key] = true
    local held = redis.call('HKEYS', fkey('held', key))
    for _, field in ipairs(held) do
      local tick = string.match(field, '^(%S+)')
      if redis.call('EXISTS', P .. 'tick:' .. tick) == 0 then release(key, field) end
    end
  end

  -- A job was parked in this call: releases look for parked jobs again.
  function F.parked_now()
    any_parked = true
  end

  -- Whether `key` has `limit` holders. `held` caches each key's count for
  -- one admit call: only that call takes slots meanwhile, and counts them.
  function F.full(key, limit, swept, held)
    local n = held[key]
    if not n then
      n = redis.call('HLEN', fkey('held', key))
      held[key] = n
    end
    if n < limit or swept[key] then return n >= limit end
    sweep(key, swept)
    n = redis.call('HLEN', fkey('held', key))
    held[key] = n
    return n >= limit
  end

  -- Slots settled in this call, per name: counted once, by F.flush().
  local freed_by_name = {}
  function F.flush()
    for name, n in pairs(freed_by_name) do redis.call('HINCRBY', P .. 'flow:locks', name, -n) end
    freed_by_name = {}
  end

  -- A flow job left `tick`'s inproc list: kind 's' succeeded, 'd' dead,
  -- 'x' discarded, 'r' retry, 'q' not started, 'i' interrupted (and a
  -- resurrection, as 'q'). Its slots are freed (the caller counts them
  -- with F.flush() once it settled all); the until-executed claim
  -- ends when it succeeded or is gone for good; a coalesce job put back
  -- waits again, so it takes the wait claim back if it is free.
  function F.settle(tick, job, kind)
    local d, jid = F.read(job)
    local field = tick .. ' ' .. jid
    local freed = 0
    for _, lock in ipairs(d.locks) do freed = freed + release(lock[1], field) end
    if #d.locks > 0 then freed_by_name[d.name] = (freed_by_name[d.name] or 0) + #d.locks end
    if d.claim and (kind == 's' or kind == 'd' or kind == 'x') and redis.call('GET', fkey('claim', d.claim)) == jid then
      redis.call('DEL', fkey('claim', d.claim))
    end
    if d.wait and (kind == 'q' or kind == 'i') then redis.call('SET', fkey('wait', d.wait), jid, 'NX') end
    return freed
  end
end
