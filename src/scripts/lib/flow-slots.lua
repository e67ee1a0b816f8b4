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

  -- A job was parked in this call: releases look for parked jobs again.
  function F.parked_now()
    any_parked = true
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

  -- Where slots are kept. A unique key (`u:…`) has one slot: its holder is
  -- the string `flow:owner:KEY` ("TICK JID"), so a fetch reads the slots
  -- of a whole batch with one MGET and takes them with one MSET, and an
  -- ack frees them with one MGET and one DEL. (One hash of all holders
  -- cost as many commands, but a hash of up to 128 fields is a listpack
  -- that Redis searches field by field: some µs a job in a busy drain.)
  -- Any other key keeps its holders in a hash of its own, `flow:held:KEY`.
  local OWNER = P .. 'flow:owner:'
  local function single(key)
    return string.byte(key, 1) == 117 and string.byte(key, 2) == 58
  end

  -- Whether `owner` (an owners value) is `field`'s. Equal strings are one
  -- interned string in Lua: the compare is a pointer's.
  local function owned_by(owner, field)
    return owner == field
  end

  -- Frees the slot `field` holds on `key`; returns 1 if it held one.
  local function release(key, field)
    if single(key) then
      if not owned_by(redis.call('GET', OWNER .. key), field) then return 0 end
      redis.call('DEL', OWNER .. key)
    elseif redis.call('HDEL', fkey('held', key), field) == 0 then
      return 0
    end
    unpark(key)
    return 1
  end

  -- How many hold a slot of `key` now.
  function F.count(key)
    if single(key) then return redis.call('EXISTS', OWNER .. key) end
    return redis.call('HLEN', fkey('held', key))
  end

  -- A fetch's view of the slots of the keys it meets (`locks`, as in a
  -- shape, each once): the owners of the unique ones read at once, each
  -- `false` when free (nil: not a unique key); counts cached (only this
  -- call takes slots meanwhile, and counts them); takes of unique keys
  -- written at once by F.commit.
  function F.view(locks)
    local view = { owners = {}, names = {}, held = {}, swept = {}, takes = {} }
    local singles, names = {}, {}
    for k = 1, #locks do
      if locks[k][3] then
        local key = locks[k][1]
        singles[#singles + 1] = key
        names[#names + 1] = OWNER .. key
        view.names[key] = names[#names]
      end
    end
    for from = 1, #names, 1000 do
      local got = redis.call('MGET', unpack(names, from, math.min(from + 999, #names)))
      for k = 1, #got do view.owners[singles[from + k - 1]] = got[k] end
    end
    return view
  end

  local function holders_now(view, key)
    local owner = view.owners[key]
    if owner ~= nil then return owner and 1 or 0 end
    return redis.call('HLEN', fkey('held', key))
  end

  -- Slots of `key` held by ticks whose lease is gone are freed (at most
  -- once per key and call). Their names are not known here; the name's
  -- count is corrected when the dead tick is resurrected (F.settle frees
  -- nothing then, and counts the slot as gone).
  local function sweep(view, key)
    view.swept[key] = true
    local fields = {}
    if single(key) then
      if view.owners[key] then fields[1] = view.owners[key] end
    else
      fields = redis.call('HKEYS', fkey('held', key))
    end
    for _, field in ipairs(fields) do
      local tick = string.match(field, '^(%S+)')
      if redis.call('EXISTS', P .. 'tick:' .. tick) == 0 and release(key, field) == 1 and single(key) then
        view.owners[key] = false
      end
    end
  end

  -- Whether `key` has `limit` holders.
  function F.full(view, key, limit)
    local n = view.held[key]
    if not n then
      n = holders_now(view, key)
      view.held[key] = n
    end
    if n < limit or view.swept[key] then return n >= limit end
    sweep(view, key)
    n = holders_now(view, key)
    view.held[key] = n
    return n >= limit
  end

  function F.take(view, key, field, fence)
    if view.owners[key] ~= nil then
      view.owners[key] = field
      view.takes[#view.takes + 1] = view.names[key]
      view.takes[#view.takes + 1] = field
    else
      redis.call('HSET', fkey('held', key), field, fence)
    end
    view.held[key] = view.held[key] + 1
  end

  function F.commit(view)
    local takes = view.takes
    for from = 1, #takes, 1000 do
      redis.call('MSET', unpack(takes, from, math.min(from + 999, #takes)))
    end
  end

  -- Releases of unique keys settled in this call, as key, field pairs, and
  -- slots settled per name: done and counted at once by F.flush().
  local pending, freed_by_name = {}, {}
  function F.flush()
    for from = 1, #pending, 2000 do
      local keys, fields, names = {}, {}, {}
      for i = from, math.min(from + 1999, #pending), 2 do
        keys[#keys + 1] = pending[i]
        fields[#fields + 1] = pending[i + 1]
        names[#names + 1] = OWNER .. pending[i]
      end
      local got = redis.call('MGET', unpack(names))
      local gone, gone_names = {}, {}
      for k = 1, #keys do
        if owned_by(got[k], fields[k]) then
          gone[#gone + 1] = keys[k]
          gone_names[#gone_names + 1] = names[k]
        end
      end
      if #gone > 0 then
        redis.call('DEL', unpack(gone_names))
        for _, key in ipairs(gone) do unpark(key) end
      end
    end
    pending = {}
    for name, n in pairs(freed_by_name) do redis.call('HINCRBY', P .. 'flow:locks', name, -n) end
    freed_by_name = {}
  end

  -- A flow job left `tick`'s inproc list: kind 's' succeeded, 'd' dead,
  -- 'x' discarded, 'r' retry, 'q' not started, 'i' interrupted (and a
  -- resurrection, as 'q'). Its slots are freed (unique keys' by F.flush(),
  -- which the caller runs once it settled all, or at once where order
  -- matters); the until-executed claim
  -- ends when it succeeded or is gone for good; a coalesce job put back
  -- waits again, so it takes the wait claim back if it is free.
  function F.settle(tick, job, kind)
    local name, key, id = F.slot(job)
    if name then
      local field = tick .. ' ' .. id
      if single(key) then
        pending[#pending + 1] = key
        pending[#pending + 1] = field
      else
        release(key, field)
      end
      freed_by_name[name] = (freed_by_name[name] or 0) + 1
      return
    end
    local d, jid = F.read(job)
    local field = tick .. ' ' .. jid
    local locks = d.locks
    for k = 1, #locks do
      local lock = locks[k]
      if lock[3] then
        pending[#pending + 1] = lock[1]
        pending[#pending + 1] = field
      else
        release(lock[1], field)
      end
    end
    if #locks > 0 then freed_by_name[d.name] = (freed_by_name[d.name] or 0) + #locks end
    if d.claim and (kind == 's' or kind == 'd' or kind == 'x') and redis.call('GET', fkey('claim', d.claim)) == jid then
      redis.call('DEL', fkey('claim', d.claim))
    end
    if d.wait and (kind == 'q' or kind == 'i') then redis.call('SET', fkey('wait', d.wait), jid, 'NX') end
  end
end
