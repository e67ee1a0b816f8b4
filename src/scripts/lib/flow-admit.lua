-- The fetch's decisions on flow jobs (lib/flow.lua, called by
-- lib/fetch.lua): start now, park on a full key, or defer past a rate limit.

local function flow_admit(F)
  local fkey, sub = F.key, string.sub

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
  -- one script, so the next job of the same key sees it. `fences` gets the
  -- jid of each start, in order: the k-th start of a call has fence
  -- F.first_fence() + k (ctx.fence), numbered on from the counter's value
  -- at the call's first admit, and the counter moves on by the starts (one
  -- INCRBY an admit). A number is never turned into text per job: that
  -- costs a microsecond or more in Redis' Lua.
  -- At most `room` start, oldest first: the newer ones are not looked at.
  -- Returns the jobs that start (LRANGE order), how many were set aside,
  -- and how many of the newest (items[1] on) were not looked at.
  local first_fence, last_fence
  function F.first_fence()
    return first_fence
  end

  function F.admit(tick, items, fences, room)
    local now = now_ms()
    local kept = {}
    local aside = 0
    local parked_by_name, slots_by_name, parked = {}, {}, {}
    -- Every flow job read first, so the slots of all their keys are read at once.
    local descs, ends, locks, listed = {}, {}, {}, {}
    local last
    for idx = 1, #items do
      if is_flow(items[idx]) then
        local d, s1 = F.shape(items[idx])
        descs[idx], ends[idx] = d, s1
        if d ~= last then
          last = d
          local its = d.locks
          for k = 1, #its do
            local key = its[k][1]
            if not listed[key] then
              listed[key] = true
              locks[#locks + 1] = its[k]
            end
          end
        end
      end
    end
    local view = F.view(locks)
    if not last_fence then
      last_fence = tonumber(redis.call('GET', P .. 'flow:fence')) or 0
      first_fence = last_fence
    end
    local fence = last_fence
    -- A key found full stays full for the rest of the call (only this call
    -- takes slots meanwhile): a run of its duplicates is parked with a
    -- compare each.
    local full_shape, full_list
    local unread = 0
    for idx = #items, 1, -1 do
      if #kept >= room then
        unread = idx
        break
      end
      local job = items[idx]
      local verdict = 'run'
      local d = descs[idx]
      if d and d == full_shape then
        full_list[#full_list + 1] = job
        parked_by_name[d.name] = parked_by_name[d.name] + 1
        verdict = 'parked'
      elseif d then
        local its = d.locks
        for k = 1, #its do
          local key = its[k][1]
          if F.full(view, key, its[k][2]) then
            local list = parked[key]
            if not list then
              list = {}
              parked[key] = list
            end
            list[#list + 1] = job
            parked_by_name[d.name] = (parked_by_name[d.name] or 0) + 1
            verdict = 'parked'
            full_shape, full_list = d, list
            break
          end
        end
        local jid = verdict == 'run' and sub(job, 16, ends[idx] - 1)
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
        if verdict == 'run' then
          fence = fence + 1
          local field = tick .. ' ' .. jid
          for k = 1, #its do F.take(view, its[k][1], field, fence) end
          if #its > 0 then slots_by_name[d.name] = (slots_by_name[d.name] or 0) + #its end
          if d.rate then
            local log = fkey('rate', d.rate[1])
            redis.call('ZADD', log, now, fence)
            redis.call('PEXPIRE', log, d.rate[3])
          end
          if d.wait and redis.call('GET', fkey('wait', d.wait)) == jid then redis.call('DEL', fkey('wait', d.wait)) end
          fences[#fences + 1] = jid
        end
      end
      if verdict == 'run' then kept[#kept + 1] = job else aside = aside + 1 end
    end
    F.commit(view)
    if fence > last_fence then
      redis.call('INCRBY', P .. 'flow:fence', fence - last_fence)
      last_fence = fence
    end
    -- Parked per key in one push a stretch, oldest deepest (at the right).
    for key, list in pairs(parked) do
      for from = 1, #list, 1000 do
        redis.call('LPUSH', fkey('park', key), unpack(list, from, math.min(from + 999, #list)))
      end
      redis.call('SADD', P .. 'flow:parked', key)
      F.parked_now()
    end
    for name, n in pairs(parked_by_name) do redis.call('HINCRBY', P .. 'flow:waiting', name, n) end
    for name, n in pairs(slots_by_name) do redis.call('HINCRBY', P .. 'flow:locks', name, n) end
    -- kept runs oldest first; the caller wants LRANGE order back
    local out = {}
    for k = #kept, 1, -1 do out[#out + 1] = kept[k] end
    return out, aside, unread
  end
end
