-- Flow control (src/flow/): unique jobs, per-key concurrency, rate limits.
-- A flow job's JSON opens with its descriptor, written by the client:
--   {"tickq_flow":"JID NAME QUEUE [l LIMIT KEY]… [r LIMIT PERIOD_MS KEY] [c KEY] [w KEY]",…
-- every word %XX-escaped (src/flow/descriptor.ts: no space, quote or
-- backslash in any), so a plain job is told apart by its third byte and a
-- flow job is read with a match or two: no JSON decoding. `l` a slot on KEY
-- (at most LIMIT holders), `r` a rate limit, `c` the until-executed
-- claim, `w` the coalesce wait claim.
-- Keys (under P):
--   flow:held:KEY      hash   "TICK JID" → "FENCE": who holds a slot now
--   flow:park:KEY      list   jobs waiting for a slot of KEY (oldest right)
--   flow:parked        set    KEYs whose park list may hold jobs (the jobs
--                             API looks through them: locate.lua)
--   flow:rate:KEY      zset   fence → start ms: starts in the last period
--   flow:rnext:KEY     string the last due handed to a deferred job
--   flow:claim:KEY     string jid of the job queued or running (until-executed)
--   flow:wait:KEY      string jid of the job waiting to run (coalesce)
--   flow:fence         string the fencing counter, one number a start
--   flow:locks         hash   NAME → slots its jobs hold
--   flow:waiting       hash   NAME → its jobs parked on a busy key
--   flow:deferred:NAME zset   jid → due ms of jobs a rate limit pushed later
-- A slot is held by a tick, and only while the job sits in that tick's
-- inproc list: the ack that takes the job out (lib/ack.lua) frees it, the
-- resurrection that moves it back (lib/resurrect.lua) frees it, and a slot
-- whose tick's lease is gone is freed by the first fetch that finds the key
-- full. Every freed slot moves the oldest parked job back to the head of
-- its queue, so a parked job waits only while its key is full.
--
-- The functions are made on first use (flow()): every entry script runs
-- its top level on each call, and a plain call makes none of them.

local FLOW_HEAD = '{"tickq_flow":"'

local function is_flow(job)
  return string.byte(job, 3) == 116 and string.sub(job, 1, 15) == FLOW_HEAD
end

local flow_lib
local function flow()
  if flow_lib then return flow_lib end
  local F = {}

  local function fkey(what, key)
    return P .. 'flow:' .. what .. ':' .. key
  end

  local function uri_decode(s)
    return (string.gsub(s, '%%(%x%x)', function(h) return string.char(tonumber(h, 16)) end))
  end

  -- The descriptor of a flow job: its jid, and what it shares with every
  -- job of the same name, queue and keys, read once a call (duplicates of
  -- a key, parked by the thousand, cost a lookup): {name, queue, locks =
  -- {{key, limit}}, rate = {key, limit, period}, claim, wait}, not to be
  -- changed. The commonest form (one slot, as while-executing) is read with
  -- one match; any other is split word by word.
  local find, sub, match, gmatch = string.find, string.sub, string.match, string.gmatch
  local shapes = {}

  local function shape_of(rest)
    local name, queue, tail = match(rest, '^(%S+) (%S+)(.*)$')
    local t = { name = name, queue = queue, locks = {} }
    local limit, key = match(tail, '^ l (%d+) (%S+)$')
    if limit then
      t.locks[1] = { key, tonumber(limit) }
      return t
    end
    local words = {}
    for word in gmatch(tail, '%S+') do words[#words + 1] = word end
    local i = 1
    while i <= #words do
      local tag = words[i]
      if tag == 'l' then
        t.locks[#t.locks + 1] = { words[i + 2], tonumber(words[i + 1]) }
        i = i + 3
      elseif tag == 'r' then
        t.rate = { words[i + 3], tonumber(words[i + 1]), tonumber(words[i + 2]) }
        i = i + 4
      elseif tag == 'c' then
        t.claim = words[i + 1]
        i = i + 2
      elseif tag == 'w' then
        t.wait = words[i + 1]
        i = i + 2
      else
        i = i + 1
      end
    end
    return t
  end

  -- Returns the job's shape and its jid.
  function F.read(job)
    local stop = find(job, '"', 16, true)
    local space = find(job, ' ', 16, true)
    local rest = sub(job, space + 1, stop - 1)
    local d = shapes[rest]
    if not d then
      d = shape_of(rest)
      shapes[rest] = d
    end
    return d, sub(job, 16, space - 1)
  end

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
    local queue = uri_decode(d.queue)
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

  -- Whether `key` has `limit` holders. `held` caches each key's count for
  -- one admit call: only that call takes slots meanwhile, and counts them.
  local function full(key, limit, swept, held)
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

  -- The due ms of a job over its rate limit, or nil when it may start now.
  -- A sliding log: at most LIMIT starts in any PERIOD. Deferred jobs are
  -- spread a period/limit apart so they do not all come back at once.
  local function rate_due(rate, now)
    local key, limit, period = rate[1], rate[2], rate[3]
    local log = fkey('rate', key)
    redis.call('ZREMRANGEBYSCORE', log, '-inf', now - period)
    local n = redis.call('ZCARD', log)
    if n < limit then return nil end
    local free_at = tonumber(redis.call('ZRANGE', log, n - limit, n - limit, 'WITHSCORES')[2]) + period
    local hint = fkey('rnext', key)
    local last = tonumber(redis.call('GET', hint))
    if last and last >= free_at then free_at = last + math.ceil(period / limit) end
    redis.call('SET', hint, free_at, 'PX', free_at - now + period)
    return free_at
  end

  -- Sorts fetched jobs (LRANGE order: newest first) into those that start
  -- now and those set aside: parked on a full key, or deferred by a rate
  -- limit to the schedule set (no retry is used). Starting takes the
  -- slots, logs the start and frees the coalesce wait claim, all in this
  -- one script, so the next job of the same key sees it. `fences` gets
  -- "JID FENCE" per start (ctx.fence): one INCRBY reserves a fence for
  -- every flow job of the call; those set aside leave theirs unused.
  -- Returns the jobs that start (LRANGE order) and how many were set aside.
  function F.admit(tick, items, fences)
    local now = now_ms()
    local swept, kept = {}, {}
    local aside = 0
    local parked_by_name, slots_by_name, parked, held = {}, {}, {}, {}
    local flows = 0
    for idx = 1, #items do
      if is_flow(items[idx]) then flows = flows + 1 end
    end
    local fence = redis.call('INCRBY', P .. 'flow:fence', flows) - flows
    for idx = #items, 1, -1 do
      local job = items[idx]
      local verdict = 'run'
      if is_flow(job) then
        local d, jid = F.read(job)
        for _, lock in ipairs(d.locks) do
          if full(lock[1], lock[2], swept, held) then
            local list = parked[lock[1]]
            if not list then
              list = {}
              parked[lock[1]] = list
            end
            list[#list + 1] = job
            parked_by_name[d.name] = (parked_by_name[d.name] or 0) + 1
            verdict = 'parked'
            break
          end
        end
        if verdict == 'run' and d.rate then
          local due = rate_due(d.rate, now)
          if due then
            redis.call('ZADD', P .. 'schedule', due / 1000, job)
            local deferred = P .. 'flow:deferred:' .. d.name
            redis.call('ZREMRANGEBYSCORE', deferred, '-inf', now)
            redis.call('ZADD', deferred, due, jid)
            verdict = 'deferred'
          end
        end
        fence = fence + 1
        if verdict == 'run' then
          local field = tick .. ' ' .. jid
          for _, lock in ipairs(d.locks) do
            redis.call('HSET', fkey('held', lock[1]), field, fence)
            held[lock[1]] = held[lock[1]] + 1
          end
          if #d.locks > 0 then slots_by_name[d.name] = (slots_by_name[d.name] or 0) + #d.locks end
          if d.rate then
            local log = fkey('rate', d.rate[1])
            redis.call('ZADD', log, now, fence)
            redis.call('PEXPIRE', log, d.rate[3])
          end
          if d.wait and redis.call('GET', fkey('wait', d.wait)) == jid then redis.call('DEL', fkey('wait', d.wait)) end
          fences[#fences + 1] = jid .. ' ' .. fence
        end
      end
      if verdict == 'run' then kept[#kept + 1] = job else aside = aside + 1 end
    end
    -- Parked per key in one push a stretch, oldest deepest (at the right).
    for key, list in pairs(parked) do
      for from = 1, #list, 1000 do
        redis.call('LPUSH', fkey('park', key), unpack(list, from, math.min(from + 999, #list)))
      end
      redis.call('SADD', P .. 'flow:parked', key)
      any_parked = true
    end
    for name, n in pairs(parked_by_name) do redis.call('HINCRBY', P .. 'flow:waiting', name, n) end
    for name, n in pairs(slots_by_name) do redis.call('HINCRBY', P .. 'flow:locks', name, n) end
    -- kept runs oldest first; the caller wants LRANGE order back
    local out = {}
    for k = #kept, 1, -1 do out[#out + 1] = kept[k] end
    return out, aside
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

  local function claims(d)
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
  -- when it is pushed now and a key of it is full, parks it at once
  -- instead of queueing it. Returns the list to push it to.
  function F.enqueue(job, queue_list, now_push)
    local d, jid = F.read(job)
    for _, c in ipairs(claims(d)) do
      if c[2] then redis.call('SET', fkey(c[1], c[2]), jid) end
    end
    if not now_push then return queue_list end
    for _, lock in ipairs(d.locks) do
      if redis.call('HLEN', fkey('held', lock[1])) >= lock[2] then
        redis.call('HINCRBY', P .. 'flow:waiting', d.name, 1)
        redis.call('SADD', P .. 'flow:parked', lock[1])
        any_parked = true
        return fkey('park', lock[1])
      end
    end
    return queue_list
  end

  -- Admin delete of a job never run again: its claims end.
  function F.forget(job)
    local d, jid = F.read(job)
    for _, c in ipairs(claims(d)) do
      if c[2] and redis.call('GET', fkey(c[1], c[2])) == jid then redis.call('DEL', fkey(c[1], c[2])) end
    end
  end

  -- Admin delete of a job parked on `key`: it waits no more.
  function F.unparked(job, key)
    redis.call('HINCRBY', P .. 'flow:waiting', F.read(job).name, -1)
    if redis.call('LLEN', fkey('park', key)) == 0 then redis.call('SREM', P .. 'flow:parked', key) end
  end

  -- Admin retry or run-now of a job (from the dead or retry set): it holds
  -- its key again, unless a newer job of the key took it meanwhile.
  function F.reclaim(job)
    local d, jid = F.read(job)
    for _, c in ipairs(claims(d)) do
      if c[2] then redis.call('SET', fkey(c[1], c[2]), jid, 'NX') end
    end
  end

  flow_lib = F
  return F
end
