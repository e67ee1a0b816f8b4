-- Slots and parking (lib/flow/flow.lua): who holds a key, freeing a slot (by
-- its holder only, or once the holder's lease is gone), and moving parked
-- jobs back when a slot frees.

local function flow_slots(F)
  local fkey, sub, find = F.key, string.sub, string.find

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

  -- `flow:sent`, a hash KEY → "SHA1 UNTIL_MS QUEUE": the job of KEY sent to a
  -- queue to take the slot when it frees, by a release (unpark) or found
  -- at the queue's head by an enqueue of its duplicate (F.sent_waits),
  -- which parks behind it: a burst waits parked, not in the queue. Every
  -- release of the key forgets it (release, F.flush) before it sends the
  -- next on, and a delete of that job forgets it (F.unstrand), so it
  -- names a job that will still take the slot, or nothing. Believed for a
  -- day, in case that job leaves by a door tickq does not see (forgotten,
  -- a duplicate is queued, and the fetch parks it if it must), and not
  -- while its queue is paused (a job of the key for a served queue does
  -- not wait for it). One hash,
  -- whose fields are the keys as they are: a release forgets a batch's
  -- keys with one HDEL and makes no string, and none while it is empty.
  local SENT = P .. 'flow:sent'
  local SENT_MS = 86400000
  local any_sent
  local function sent_somewhere()
    if any_sent == nil then any_sent = redis.call('EXISTS', SENT) == 1 end
    return any_sent
  end
  function F.sent(key, job)
    local d = F.read(job)
    redis.call('HSET', SENT, key, redis.sha1hex(job) .. ' ' .. (now_ms() + SENT_MS) .. ' ' .. (d and F.uri_decode(d.queue) or ''))
    redis.call('PEXPIRE', SENT, SENT_MS)
    any_sent = true
  end

  -- The SHA-1 of the job sent on for `key`, or nil; and its queue.
  local function sent_of(key)
    local v = redis.call('HGET', SENT, key)
    if not v then return nil end
    local until_ms, queue = string.match(v, '^%x+ (%d+) (.*)$')
    if until_ms and tonumber(until_ms) > now_ms() then return sub(v, 1, 40), queue end
    return nil
  end

  -- Whether `job` is the job sent on for `key`.
  function F.is_sent(key, job)
    if not sent_somewhere() then return false end
    local sent = sent_of(key)
    return sent ~= nil and sent == redis.sha1hex(job)
  end

  -- Whether a job of `key`, of the shape `one`, waits in a queue for its
  -- slot: the one sent on, or the newest job of `list` if it is of `key`
  -- and `shape`, then sent on.
  function F.sent_waits(key, list, shape)
    local sent, queue = sent_of(key)
    if sent and redis.call('SISMEMBER', P .. 'paused', queue) == 0 then return true end
    local newest = redis.call('LINDEX', list, 0)
    if not (newest and is_flow(newest)) then return false end
    local newest_shape, newest_key = F.descriptor(newest)
    if not (newest_shape == shape and newest_key == key) then return false end
    F.sent(key, newest)
    return true
  end

  -- `job` is pushed again as `text` (the jobs API's run now): if it was
  -- the job sent on for a key of it, `text` is.
  function F.resend(job, text)
    if not sent_somewhere() then return end
    local t = F.read(job)
    for _, lock in ipairs(t and t.locks or {}) do
      if sent_of(lock.key) == redis.sha1hex(job) then F.sent(lock.key, text) end
    end
  end

  -- Forgets the job sent on for each key of `keys`: a release, or a
  -- fetch that parked jobs of the keys (the one sent on may be among
  -- them: it waits parked now, and a key whose job sent on is parked
  -- would wait for nothing).
  local function forget_sent(keys)
    if #keys > 0 and sent_somewhere() then redis.call('HDEL', SENT, unpack(keys)) end
  end
  F.unsend = forget_sent

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
    redis.call('RPUSH', P .. 'queue:' .. queue, job)
    redis.call('HINCRBY', P .. 'flow:waiting', d.name, -1)
    F.sent(key, job)
    F.sent_on = F.sent_on + 1
  end

  -- Where slots are kept. A unique key (`u:…`) has one slot: its holder is
  -- the string `flow:owner:KEY`, the holding tick's id, so a fetch reads
  -- the slots of a whole batch with one MGET and takes them with one MSET,
  -- and an ack frees them with one DEL. The owner needs no jid: one tick
  -- never holds one unique key twice, and an ack settles only a job it
  -- finds in its tick's list. (One hash of all holders
  -- cost as many commands, but a hash of up to 128 fields is a listpack
  -- that Redis searches field by field: some µs a job in a busy drain.)
  -- Any other key keeps its holders in a hash of its own, `flow:held:KEY`.
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
  -- them). Takes of unique keys are written at once by F.commit.
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

  function F.commit(view)
    local takes = view.takes
    for from = 1, #takes, 1000 do
      redis.call('MSET', unpack(takes, from, math.min(from + 999, #takes)))
    end
  end

  -- Releases of unique keys settled in this call, as key, tick pairs, and
  -- slots settled per name: done and counted at once by F.flush(). A tick
  -- whose lease is held still owns every slot it took (only a lease gone
  -- lets another take them: F.full's sweep,
  -- lib/tick/resurrect-dead-ticks.lua), so its releases need no read; any
  -- other's (a lease lost, a dead tick's resurrection) are checked against
  -- the owners first.
  local pending, npending, freed_by_name, trusted = {}, 0, {}, true
  function F.flush()
    local n = npending
    for from = 1, n, 2000 do
      local last = math.min(from + 1999, n)
      local names, c = {}, 0
      for i = from, last, 2 do
        c = c + 1
        names[c] = OWNER .. pending[i]
      end
      local function keys()
        local t = {}
        for k = 1, c do t[k] = pending[from + 2 * k - 2] end
        return t
      end
      -- gone: the positions in `pending` of the keys freed
      local gone = {}
      if trusted then
        redis.call('DEL', unpack(names))
        if sent_somewhere() then forget_sent(keys()) end
        if parked_somewhere() then
          for i = from, last, 2 do gone[#gone + 1] = i end
        end
      else
        local got, del, freed = redis.call('MGET', unpack(names)), {}, {}
        for k = 1, c do
          if got[k] == pending[from + 2 * k - 1] then
            del[#del + 1], freed[#freed + 1] = names[k], pending[from + 2 * k - 2]
            gone[#gone + 1] = from + 2 * k - 2
          end
        end
        if #del > 0 then redis.call('DEL', unpack(del)) end
        forget_sent(freed)
      end
      if parked_somewhere() then
        for _, i in ipairs(gone) do unpark(pending[i]) end
      end
    end
    pending, npending, trusted = {}, 0, true
    for name, n in pairs(freed_by_name) do redis.call('HINCRBY', P .. 'flow:locks', name, -n) end
    freed_by_name = {}
  end

  local function release_later(key, tick)
    pending[npending + 1], pending[npending + 2] = key, tick
    npending = npending + 2
  end

  -- A flow job left `tick`'s inproc list: kind 's' succeeded, 'd' dead,
  -- 'x' discarded, 'r' retry, 'q' not started, 'i' interrupted (and a
  -- resurrection, as 'q'). `held`: the tick's lease is held (its slots are
  -- its own). Its slots are freed (unique keys' by F.flush(), which the
  -- caller runs once it settled all, or at once where order matters); the
  -- until-executed claim ends when it succeeded or is gone for good; a
  -- coalesce job put back waits again, so it takes the wait claim back if
  -- it is free.
  function F.settle(tick, job, kind, held)
    if not held then trusted = false end
    local shape, keys, jid = F.descriptor(job)
    if not shape then return end
    if shape.one then
      release_later(keys, tick)
      freed_by_name[shape.name] = (freed_by_name[shape.name] or 0) + 1
      return
    end
    local t = F.read(job)
    if not t then return end
    for _, lock in ipairs(t.locks) do
      if lock.unique then
        release_later(lock.key, tick)
      else
        release(lock.key, tick .. ' ' .. jid)
      end
    end
    if #t.locks > 0 then freed_by_name[t.name] = (freed_by_name[t.name] or 0) + #t.locks end
    if t.claim and (kind == 's' or kind == 'd' or kind == 'x') and redis.call('GET', fkey('claim', t.claim)) == jid then
      redis.call('DEL', fkey('claim', t.claim))
    end
    if t.wait and (kind == 'q' or kind == 'i') then redis.call('SET', fkey('wait', t.wait), jid, 'NX') end
  end

  -- F.settle of the `n` flow jobs of `jobs`, all succeeded (an ack's
  -- successes, freed together by the caller's F.flush()).
  function F.settle_succeeded(tick, jobs, n, held)
    for i = 1, n do F.settle(tick, jobs[i], 's', held) end
  end
end
