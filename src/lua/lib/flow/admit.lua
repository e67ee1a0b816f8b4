-- The fetch's decisions on flow jobs (lib/flow.lua, called by
-- lib/fetch.lua): start now, park on a full key, or defer past a rate limit.

local function flow_admit(F)
  local fkey, sub, find = F.key, string.sub, string.find

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
  -- one script, so the next job of the same key sees it. Each start gets a
  -- fence (ctx.fence): the k-th flow job the call's reply holds has fence
  -- F.first_fence() + k, numbered on from the counter's value at the
  -- call's first admit (or Redis' time, lib/common.lua), and the counter
  -- is set to the last fence taken (one SET an admit). The reply names no job: the client counts the flow
  -- jobs it got, in order (src/flow/fences.ts).
  -- At most `room` start, oldest first: the newer ones are not looked at.
  -- Returns the jobs that start, oldest first, how many were set aside,
  -- and how many of the newest were not looked at: items[1] to
  -- items[unread] once it returns (it moves them to the front).
  local first_fence, last_fence
  -- The shape of a flow job whose descriptor cannot be read.
  local MALFORMED = {}
  -- The shape of a job parked as the first pass read it.
  local PARKED = {}
  function F.first_fence()
    return first_fence
  end

  -- A job of any shape but the commonest: {job whole (F.read), jid}.
  local function start_other(view, tick, t, jid, fence, now)
    for k = 1, #t.locks do
      local lock = t.locks[k]
      F.take(view, lock[1], lock[3] and tick or tick .. ' ' .. jid, fence)
    end
    if t.rate then
      local log = fkey('rate', t.rate[1])
      redis.call('ZADD', log, now, fence_text(fence))
      redis.call('PEXPIRE', log, t.rate[3])
    end
    if t.wait and redis.call('GET', fkey('wait', t.wait)) == jid then redis.call('DEL', fkey('wait', t.wait)) end
  end

  -- The commonest chunk: jobs all of one shape `one`, their keys distinct
  -- and free, all to start. They are taken at once, all or none (MSETNX),
  -- with a find, a find, a sub and a concat a job: none of F.admit's
  -- bookkeeping. Returns them, oldest first, and their shape; nil when
  -- the chunk is not such (nothing written).
  local OWNER = F.owner_prefix
  local function admit_run(tick, items, room)
    local n = #items
    if n > room or n > 1000 or not is_flow(items[n]) then return nil end
    local d, a = F.shape(items[n])
    if not (d and d.one) then return nil end
    local head = sub(items[n], 1, a - 1)
    -- the newest first: a chunk of another make most often ends with it
    if find(items[1], head, 1, true) ~= 1 then return nil end
    local kept, owners, seen = {}, {}, {}
    for k = 1, n do
      local job = items[n + 1 - k]
      local b = find(job, head, 1, true) == 1 and find(job, '|', a, true)
      if not b or b == a then return nil end
      local key = sub(job, a, b - 1)
      if seen[key] then return nil end
      seen[key] = true
      kept[k], owners[2 * k - 1], owners[2 * k] = job, OWNER .. key, tick
    end
    if redis.call('MSETNX', unpack(owners)) == 0 then return nil end
    return kept, d
  end

  function F.admit(tick, items, room)
    if not last_fence then
      last_fence = last_fence_of(P .. 'flow:fence')
      first_fence = last_fence
    end
    local run, run_d = admit_run(tick, items, room)
    if run then
      last_fence = last_fence + #run
      fences_taken(P .. 'flow:fence', last_fence)
      redis.call('HINCRBY', P .. 'flow:locks', run_d.name, #run)
      return run, 0, 0
    end
    local now = now_ms()
    local kept = {}
    local aside = 0
    local parked_by_name, slots_by_name, parked = {}, {}, {}
    -- Every flow job read first, so the owners of all their unique keys
    -- are read at once. Per job: its shape, and the number of its key
    -- (shape `one`) or {job whole, jid}. A key met twice in the call is
    -- likely a run of duplicates (a burst enqueued while it was free):
    -- the text its jobs open with, up to the jid, is kept, and a job that
    -- opens with it is known with one find.
    -- shapes and slot are by age, the oldest first (an array filled from
    -- its end would be a hash)
    local n = #items
    local shapes, slot, singles, index, nsingles = {}, {}, {}, {}, 0
    local known = F.shapes
    local dup, dup_d, dup_k
    -- A run of duplicates of a key a live tick holds is parked as it is
    -- read: a cold head of 10,000 duplicates costs each a find and a
    -- place in its park list, no second look. fast[k]: decided once a
    -- call, when key k is met twice; only if k's first job is the last
    -- new key met (new_k, the new_at-th oldest), so it can be parked first and the
    -- key's jobs keep their order. Such jobs are PARKED in `shapes`;
    -- dup_list (dup_len long) is the park list of the run being read,
    -- dup_n of its jobs counted for dup_d's name when it ends.
    local fast, new_k, new_at = {}, nil, nil
    local dup_list, dup_len, dup_n, nfast = nil, 0, 0, 0
    local function end_run()
      if dup_n > 0 then parked_by_name[dup_d.name] = (parked_by_name[dup_d.name] or 0) + dup_n end
      nfast, dup_n = nfast + dup_n, 0
    end
    -- The text a job of the last shape `one` met opens with, up to its
    -- key: the jobs of a batch are mostly of a few shapes, and one find
    -- tells a job of it.
    local run_head, run_d, run_at
    for at = 1, n do
      local job = items[n + 1 - at]
      local d, s
      if dup and find(job, dup, 1, true) == 1 then
        if dup_list then
          dup_len, dup_n = dup_len + 1, dup_n + 1
          dup_list[dup_len], shapes[at] = job, PARKED
        else
          shapes[at], slot[at] = dup_d, dup_k
        end
      else
        if run_head and find(job, run_head, 1, true) == 1 then
          d, s = run_d, run_at
        elseif is_flow(job) then
          -- F.shape, in place
          s = find(job, '|', 16, true)
          if s then
            local text = sub(job, 16, s - 1)
            d = known[text]
            if d == nil then d = F.shape_of(text) end
            if d and d.one then run_head, run_d, run_at = sub(job, 1, s), d, s end
          end
          d = d or false
        end
        local b = d and d.one and find(job, '|', s + 1, true)
        if b and b > s + 1 then
          local key = sub(job, s + 1, b - 1)
          local k = index[key]
          if not k then
            nsingles = nsingles + 1
            k = nsingles
            singles[k], index[key] = key, k
            shapes[at], slot[at], new_k, new_at = d, k, k, at
          else
            shapes[at], slot[at] = d, k
            end_run()
            dup, dup_d, dup_k, dup_list = sub(job, 1, b), d, k, nil
            local f = fast[k]
            if f == nil then
              f = k == new_k and F.busy1(key)
              fast[k] = f
              if f then
                -- the key's first job, parked first (under its own name)
                local first = shapes[new_at]
                parked[key] = { items[n + 1 - new_at] }
                parked_by_name[first.name] = (parked_by_name[first.name] or 0) + 1
                shapes[new_at], nfast = PARKED, nfast + 1
              end
            end
            if f then
              dup_list = parked[key]
              dup_len, dup_n = #dup_list + 1, 1
              dup_list[dup_len], shapes[at] = job, PARKED
            end
          end
        elseif d ~= nil then
          -- Any other shape, or a descriptor that cannot be read (the job
          -- goes to the dead set).
          local t, jid
          if not (d and d.one) then t, jid = F.read(job) end
          shapes[at], slot[at] = t or MALFORMED, { t, jid }
          for _, lock in ipairs(t and t.locks or {}) do
            if lock[3] then
              local k = index[lock[1]]
              if not k then
                nsingles = nsingles + 1
                k = nsingles
                singles[k], index[lock[1]] = lock[1], k
              end
              -- a job of another shape takes its place in the key's line:
              -- the key's later jobs are parked by the second pass, in order
              if fast[k] and dup_k == k and dup_list then
                end_run()
                dup_list = nil
              end
              fast[k] = false
            end
          end
        end
      end
    end
    end_run()
    aside = nfast
    local view = F.view(singles, index)
    local owners, takes, names = view.owners, view.takes, view.names
    local fence = last_fence
    -- Sets `job` aside on `key`, full.
    local function park(job, key, name)
      local list = parked[key]
      if not list then
        list = {}
        parked[key] = list
      end
      list[#list + 1] = job
      parked_by_name[name] = (parked_by_name[name] or 0) + 1
    end
    -- A key found full stays full for the rest of the call (only this call
    -- takes slots meanwhile): a run of its duplicates costs a compare each.
    local full_k, full_d, full_list, full_n = nil, nil, nil, 0
    -- Slots taken by jobs of shape `one`, counted for their name as a run of one shape.
    local taken_d, taken_n = nil, 0
    local function count_taken(d)
      if d ~= taken_d then
        if taken_n > 0 then slots_by_name[taken_d.name] = (slots_by_name[taken_d.name] or 0) + taken_n end
        taken_d, taken_n = d, 0
      end
      taken_n = taken_n + 1
    end
    local unread, nkept, ntakes = 0, 0, #takes
    local unsent = {}
    for idx = #items, 1, -1 do
      if nkept >= room then
        unread = idx
        break
      end
      local job = items[idx]
      local d = shapes[n + 1 - idx]
      local run = true
      if d == PARKED then
        run = nil -- parked as it was read
      elseif d == MALFORMED then
        local entry = unroutable_entry(job, 'its flow control descriptor (tickq_flow) cannot be read', now / 1000)
        redis.call('ZADD', P .. 'dead', now / 1000, entry)
        run = false
      elseif d and d.one then
        local k = slot[n + 1 - idx]
        -- (the same key under another job name counts for that name)
        if k == full_k and d == full_d then
          full_list[#full_list + 1] = job
          full_n = full_n + 1
          run = false
        elseif owners[k] and F.held1(view, k) then
          park(job, singles[k], d.name)
          if full_n > 0 then parked_by_name[full_d.name] = parked_by_name[full_d.name] + full_n end
          full_k, full_d, full_list, full_n = k, d, parked[singles[k]], 0
          run = false
        else
          -- F.take1, in place (a later job of k in this call, seldom,
          -- finds the owner is this tick and parks)
          fence = fence + 1
          owners[k] = tick
          takes[ntakes + 1], takes[ntakes + 2] = names[k], tick
          ntakes = ntakes + 2
          count_taken(d)
        end
      elseif d then
        local t, jid = slot[n + 1 - idx][1], slot[n + 1 - idx][2]
        for k = 1, #t.locks do
          local lock = t.locks[k]
          if F.full(view, lock[1], lock[2]) then
            park(job, lock[1], d.name)
            -- it may be the job sent on for another key of it: that key
            -- must not wait for it (F.unsend)
            for j = 1, #t.locks do unsent[#unsent + 1] = t.locks[j][1] end
            run = false
            break
          end
        end
        if run and t.rate then
          local due = rate_due(t.rate, now)
          if due then
            redis.call('ZADD', P .. 'schedule', due / 1000, job)
            local deferred = P .. 'flow:deferred:' .. d.name
            redis.call('ZREMRANGEBYSCORE', deferred, '-inf', now)
            redis.call('ZADD', deferred, due, jid)
            run = false
          end
        end
        if run then
          fence = fence + 1
          start_other(view, tick, t, jid, fence, now)
          ntakes = #takes
          if #t.locks > 0 then slots_by_name[d.name] = (slots_by_name[d.name] or 0) + #t.locks end
        end
      end
      if run then
        nkept = nkept + 1
        kept[nkept] = job
      elseif run == false then
        aside = aside + 1
      end
    end
    -- The newest jobs, not looked at, go back to the queue: not those
    -- parked as they were read (kept in their order, at the front).
    if unread > 0 and nfast > 0 then
      local back = 0
      for idx = 1, unread do
        if shapes[n + 1 - idx] ~= PARKED then
          back = back + 1
          items[back] = items[idx]
        end
      end
      unread = back
    end
    if taken_n > 0 then slots_by_name[taken_d.name] = (slots_by_name[taken_d.name] or 0) + taken_n end
    if full_n > 0 then parked_by_name[full_d.name] = parked_by_name[full_d.name] + full_n end
    F.commit(view)
    if fence > last_fence then
      fences_taken(P .. 'flow:fence', fence)
      last_fence = fence
    end
    -- Parked per key in one push a stretch, oldest deepest (at the right).
    -- A key's job sent on may be one of them, the key's oldest in the call
    -- (sent to the head of its queue): a holder put back or resurrected
    -- went in front of it and took the slot. It goes to the oldest end, to
    -- be the next sent on, and is forgotten as sent (F.unsend): the next
    -- release sends the oldest parked job on.
    for key, list in pairs(parked) do
      unsent[#unsent + 1] = key
      local first = 1
      if F.is_sent(key, list[1]) then
        redis.call('RPUSH', fkey('park', key), list[1])
        first = 2
      end
      for from = first, #list, 1000 do
        redis.call('LPUSH', fkey('park', key), unpack(list, from, math.min(from + 999, #list)))
      end
      redis.call('SADD', P .. 'flow:parked', key)
      F.parked_now()
    end
    F.unsend(unsent)
    for name, n in pairs(parked_by_name) do redis.call('HINCRBY', P .. 'flow:waiting', name, n) end
    for name, n in pairs(slots_by_name) do redis.call('HINCRBY', P .. 'flow:locks', name, n) end
    return kept, aside, unread
  end
end
