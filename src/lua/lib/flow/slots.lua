-- Slots and parking (lib/flow/flow.lua): who holds a key, freeing a slot (by
-- its holder only, or once the holder's lease is gone), and moving parked
-- jobs back when a slot frees.
-- @include lib/common/prefix-keys.lua
-- @include lib/order/read-order.lua
-- @include lib/order/queue-job.lua
-- @include lib/common/edit-job-text.lua

local function flow_slots(F)
  local fkey, sub = F.key, string.sub
  local forget_sent, sent_of = F.unsend, F.sent_of

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

  -- Parked jobs this call sent back to their queues: runnable work a
  -- tick's reply reports.
  F.sent_on = 0

  -- Moves the oldest job parked on `key` to the head of its queue, as the
  -- one sent on for `key`. A job whose descriptor cannot be read (pushed
  -- by hand) cannot say where it goes: it goes to the dead set, whole,
  -- with why (lib/common/edit-job-text.lua).
  local function unpark(key)
    if not parked_somewhere() then return end
    local park = fkey('park', key)
    local job = redis.call('RPOP', park)
    if not job then return end
    if redis.call('LLEN', park) == 0 then redis.call('SREM', P .. 'flow:parked', key) end
    local d = F.read(job)
    if not d then
      local shape = F.descriptor(job)
      if shape then redis.call('HINCRBY', P .. 'flow:waiting', shape.name, -1) end
      local now = now_ms() / 1000
      redis.call('ZADD', P .. 'dead', now, unroutable_entry(job, 'its flow control descriptor (tickq_flow) cannot be read', now))
      return
    end
    local queue = F.uri_decode(d.queue)
    redis.call('SADD', P .. 'queues', queue)
    order.push(queue, job, true)
    redis.call('HINCRBY', P .. 'flow:waiting', d.name, -1)
    F.sent(key, job)
    F.sent_on = F.sent_on + 1
  end

  -- Where slots are kept. A unique key (`u:…`) has one slot: its holder is
  -- the string `flow:owner:KEY`, the holding tick's id, so a fetch reads
  -- the slots of a whole batch with one MGET and takes them with one MSET,
  -- and an ack frees them with one DEL. The owner needs no jid: one tick
  -- never holds one unique key twice, and an ack settles only a job it
  -- finds in its tick's list. (One hash of all holders cost as many
  -- commands, but a hash of up to 128 fields is a listpack that Redis
  -- searches field by field: some µs a job in a busy drain.) Any other key
  -- keeps its holders in a hash of its own, `flow:held:KEY`.
  local OWNER = P .. 'flow:owner:'
  local UNIQUE_PREFIX = 'u:'
  local function single(key)
    return sub(key, 1, #UNIQUE_PREFIX) == UNIQUE_PREFIX
  end

  -- Frees the slot `field` holds on `key`; returns 1 if it held one.
  local function release(key, field)
    if single(key) then
      if redis.call('GET', OWNER .. key) ~= field then return 0 end
      redis.call('DEL', OWNER .. key)
    elseif redis.call('HDEL', fkey('held', key), field) == 0 then
      return 0
    end
    forget_sent({ key })
    unpark(key)
    return 1
  end
  F.release = release

  -- A job of `job`'s keys left for good (the jobs API deleted it or
  -- cleared its list). A key's parked jobs move on one at a time, as
  -- slots free, behind the job sent on (`flow:sent`): when the job
  -- deleted is that one (or none is known), and the key has a free slot,
  -- the next moves on, so the rest do not wait with the key free for a
  -- new job of the key. Any other delete leaves the order alone.
  function F.unstrand(job)
    local t = F.read(job)
    for _, lock in ipairs(t and t.locks or {}) do
      local sent = sent_of(lock.key)
      if not sent or sent == redis.sha1hex(job) then
        forget_sent({ lock.key })
        if F.count(lock.key) < lock.limit then unpark(lock.key) end
      end
    end
  end

  -- How many hold a slot of `key` now.
  function F.count(key)
    if single(key) then return redis.call('EXISTS', OWNER .. key) end
    return redis.call('HLEN', fkey('held', key))
  end

  -- A fetch's view of the slots of the keys it meets. Unique keys are
  -- numbered (`index`: key → k, `singles`: k → key) and their owners read
  -- at once into `owners[k]`, false when free. Other keys' holder counts
  -- are cached in `held` (only this call takes slots meanwhile, and counts
  -- them). Takes of unique keys are written at once by F.write_takes.
  function F.view(singles, index)
    local names, owners = {}, {}
    for k = 1, #singles do names[k] = OWNER .. singles[k] end
    for from = 1, #names, 1000 do
      local got = redis.call('MGET', unpack(names, from, math.min(from + 999, #names)))
      for k = 1, #got do owners[from + k - 1] = got[k] end
    end
    return { singles = singles, index = index, names = names, owners = owners, swept = {}, held = {}, hswept = {}, takes = {}, taken = {}, live = {} }
  end

  -- Whether unique key number k is held by another tick whose lease lives,
  -- as the call found it (nothing is freed here: F.held1 does that).
  function F.held_live(view, k)
    local owner = view.owners[k]
    if not owner or view.taken[k] then return false end
    if view.live[k] == nil then view.live[k] = redis.call('EXISTS', P .. 'tick:' .. string.match(owner, '^%S+')) == 1 end
    return view.live[k]
  end

  -- Whether a tick whose lease is gone holds a slot (`field`, or the owner
  -- of a unique key) of `key`: then it is freed. Its name is not known
  -- here; the name's count is corrected when the dead tick is resurrected
  -- (F.settle frees nothing then, and counts the slot as gone).
  local function swept_away(key, field)
    -- A unique key's owner is its tick; a held hash's field "TICK JID".
    local tick = string.match(field, '^(%S+)')
    return redis.call('EXISTS', P .. 'tick:' .. tick) == 0 and release(key, field) == 1
  end

  -- Whether unique key number k is held (its holder looked at once a call:
  -- a slot whose tick's lease is gone is freed).
  function F.held1(view, k)
    local owner = view.owners[k]
    if owner and not view.swept[k] then
      view.swept[k] = true
      if swept_away(view.singles[k], owner) then
        view.owners[k] = false
        return false
      end
    end
    return owner
  end

  -- Whether `key` (of any kind) has `limit` holders.
  function F.full(view, key, limit)
    local k = view.index[key]
    if k then return F.held1(view, k) and true or false end
    local n = view.held[key]
    if not n then
      n = redis.call('HLEN', fkey('held', key))
      view.held[key] = n
    end
    if n < limit or view.hswept[key] then return n >= limit end
    view.hswept[key] = true
    for _, field in ipairs(redis.call('HKEYS', fkey('held', key))) do swept_away(key, field) end
    n = redis.call('HLEN', fkey('held', key))
    view.held[key] = n
    return n >= limit
  end

  -- `key` (of any kind) is taken: `field` is the tick for a unique key,
  -- "TICK JID" for another.
  function F.take(view, key, field, fence)
    local k = view.index[key]
    if k then
      local takes = view.takes
      view.owners[k], view.taken[k] = field, true
      takes[#takes + 1] = view.names[k]
      takes[#takes + 1] = field
      return
    end
    redis.call('HSET', fkey('held', key), field, fence_text(fence))
    view.held[key] = view.held[key] + 1
  end

  -- Takes every unique key of `keys` for `tick` if all are free, all or
  -- none (MSETNX); whether it took them.
  function F.take_all_free(keys, tick)
    local pairs_ = {}
    for k = 1, #keys do pairs_[2 * k - 1], pairs_[2 * k] = OWNER .. keys[k], tick end
    return redis.call('MSETNX', unpack(pairs_)) == 1
  end

  -- Writes the holders of the unique keys this call took (F.take).
  function F.write_takes(view)
    local takes = view.takes
    for from = 1, #takes, 1000 do
      redis.call('MSET', unpack(takes, from, math.min(from + 999, #takes)))
    end
  end

  local function owner_names(keys)
    local names = {}
    for k = 1, #keys do names[k] = OWNER .. keys[k] end
    return names
  end

  -- Those of the unique keys `keys` that `ticks` (at the same places) still own.
  function F.still_owned(keys, ticks)
    local got, owned = redis.call('MGET', unpack(owner_names(keys))), {}
    for k = 1, #keys do
      if got[k] == ticks[k] then owned[#owned + 1] = keys[k] end
    end
    return owned
  end

  -- Frees the unique keys `keys` their holders settled: the owners go with
  -- one DEL, the jobs sent on for them are forgotten, and each key sends
  -- its oldest parked job on.
  function F.free_unique(keys)
    if #keys == 0 then return end
    redis.call('DEL', unpack(owner_names(keys)))
    forget_sent(keys)
    if parked_somewhere() then
      for _, key in ipairs(keys) do unpark(key) end
    end
  end
end
