-- Slots and parking (lib/flow.lua): who holds a key, freeing a slot (by
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
  -- (`head`: the text a job of it opens with, up to its key), then sent on.
  function F.sent_waits(key, list, head)
    local sent, queue = sent_of(key)
    if sent and redis.call('SISMEMBER', P .. 'paused', queue) == 0 then return true end
    local newest = redis.call('LINDEX', list, 0)
    if not (newest and find(newest, head, 1, true) == 1) then return false end
    F.sent(key, newest)
    return true
  end

  -- `job` is pushed again as `text` (the jobs API's run now): if it was
  -- the job sent on for a key of it, `text` is.
  function F.resend(job, text)
    if not sent_somewhere() then return end
    local t = F.read(job)
    for _, lock in ipairs(t and t.locks or {}) do
      if sent_of(lock[1]) == redis.sha1hex(job) then F.sent(lock[1], text) end
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
  -- with why (lib/job-text.lua).
  local function unpark(key)
    if not parked_somewhere() then return end
    local park = fkey('park', key)
    local job = redis.call('RPOP', park)
    if not job then return end
    if redis.call('LLEN', park) == 0 then redis.call('SREM', P .. 'flow:parked', key) end
    local d = F.read(job)
    if not d then
      local shape = F.shape(job)
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
  F.owner_prefix = OWNER
  local function single(key)
    return string.byte(key, 1) == 117 and string.byte(key, 2) == 58
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
      local sent = sent_of(lock[1])
      if not sent or sent == redis.sha1hex(job) then
        forget_sent({ lock[1] })
        if F.count(lock[1]) < lock[2] then unpark(lock[1]) end
      end
    end
  end

  -- How many hold a slot of `key` now.
  function F.count(key)
    if single(key) then return redis.call('EXISTS', OWNER .. key) end
    return redis.call('HLEN', fkey('held', key))
  end

  -- A fetch's view of the slots of the keys it meets. Unique keys are
  -- numbered (`index`: key → k, `singles`: k → key, each once) and their
  -- owners read at once into `owners[k]`, false when free; a call keeps
  -- per-key state in arrays by number (a table a key, or a map a state,
  -- cost more than the MGET). Other keys' holder counts are cached in
  -- `held` (only this call takes slots meanwhile, and counts them). Takes
  -- of unique keys are written at once by F.commit. (The commonest
  -- chunk, distinct free keys of one shape, is taken before any of this:
  -- lib/flow-admit.lua's admit_run.)
  function F.view(singles, index)
    local names, owners = {}, {}
    for k = 1, #singles do names[k] = OWNER .. singles[k] end
    for from = 1, #names, 1000 do
      local got = redis.call('MGET', unpack(names, from, math.min(from + 999, #names)))
      for k = 1, #got do owners[from + k - 1] = got[k] end
    end
    return { singles = singles, index = index, names = names, owners = owners, swept = {}, held = {}, hswept = {}, takes = {} }
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

  -- Whether unique key `key` is held by a tick whose lease lives (a dead
  -- tick's slot is left to F.held1, which frees it).
  function F.busy1(key)
    local owner = redis.call('GET', OWNER .. key)
    return owner and redis.call('EXISTS', P .. 'tick:' .. string.match(owner, '^%S+')) == 1 or false
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
      view.owners[k] = field
      takes[#takes + 1] = view.names[k]
      takes[#takes + 1] = field
      return
    end
    redis.call('HSET', fkey('held', key), field, fence_text(fence))
    view.held[key] = view.held[key] + 1
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
  -- lets another take them: F.full's sweep, lib/resurrect.lua), so its
  -- releases need no read; any other's (a lease lost, a dead tick's
  -- resurrection) are checked against the owners first.
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

  -- The text the last job of shape `one` settled opens with, up to its
  -- KEYS (an ack settles runs of one shape: one find tells the next).
  local settle_head, settle_d, settle_at

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
    local d, a
    if settle_head and find(job, settle_head, 1, true) == 1 then
      d, a = settle_d, settle_at
    else
      d, a = F.shape(job)
      if d and d.one then settle_head, settle_d, settle_at = sub(job, 1, a - 1), d, a end
    end
    if d and d.one then
      pending[npending + 1], pending[npending + 2] = sub(job, a, find(job, '|', a, true) - 1), tick
      npending = npending + 2
      freed_by_name[d.name] = (freed_by_name[d.name] or 0) + 1
      return
    end
    local t, jid = F.read(job)
    if not t then return end
    local locks = t.locks
    for k = 1, #locks do
      local lock = locks[k]
      if lock[3] then
        pending[npending + 1], pending[npending + 2] = lock[1], tick
        npending = npending + 2
      else
        release(lock[1], tick .. ' ' .. jid)
      end
    end
    if #locks > 0 then freed_by_name[t.name] = (freed_by_name[t.name] or 0) + #locks end
    if t.claim and (kind == 's' or kind == 'd' or kind == 'x') and redis.call('GET', fkey('claim', t.claim)) == jid then
      redis.call('DEL', fkey('claim', t.claim))
    end
    if t.wait and (kind == 'q' or kind == 'i') then redis.call('SET', fkey('wait', t.wait), jid, 'NX') end
  end

  -- F.settle of the `n` flow jobs of `jobs`, all succeeded: an ack's
  -- successes are mostly a run of one shape `one`, whose job costs here a
  -- find, a find and a sub (no call, no count by name a job).
  function F.settle_succeeded(tick, jobs, n, held)
    local run = 0
    for i = 1, n do
      local job = jobs[i]
      if settle_head and find(job, settle_head, 1, true) == 1 then
        pending[npending + 1], pending[npending + 2] = sub(job, settle_at, find(job, '|', settle_at, true) - 1), tick
        npending = npending + 2
        run = run + 1
      else
        if run > 0 then freed_by_name[settle_d.name] = (freed_by_name[settle_d.name] or 0) + run end
        run = 0
        F.settle(tick, job, 's', held)
      end
    end
    if run > 0 then freed_by_name[settle_d.name] = (freed_by_name[settle_d.name] or 0) + run end
    if not held then trusted = false end
  end
end
