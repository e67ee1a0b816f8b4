-- Hands due workflow runs to a tick: each gets the next fence and the tick
-- as its owner, and its parked steps whose time came (a sleep's end, a
-- wait's timeout) are resolved first, so the run's replay finds them done.
-- Runs held by a tick whose lease is gone (it died) are due again first,
-- and a chunk of a pending event's waits is resolved (deliver-events.lua).
-- Needs run-state.lua, carry-steps.lua, deliver-events.lua, prefix-keys.lua and memory-state.lua.
-- @include lib/common/prefix-keys.lua
-- @include lib/workflows/run-state.lua
-- @include lib/common/memory-state.lua
-- @include lib/workflows/deliver-events.lua
-- @include lib/workflows/kept-events.lua
-- @include lib/workflows/carry-steps.lua
-- @include lib/tick/restart-hold.lua

-- wf:held scores each held run by when its holder is next checked: its claim,
-- then, while the holder's lease lives, WF_HELD_CHECK_MS later each time (so a
-- run's commits write nothing to it, and a live holder's runs are read once a
-- period, not every claim). A dead holder's run is due again at the first
-- claim past its check time. Each distinct holder's lease is read once a call.
local WF_HELD_CHECK_MS = 1000

local function wf_reclaim_dead(now)
  local held_key = wf_key('held')
  local held = redis.call('ZRANGEBYSCORE', held_key, '-inf', now, 'LIMIT', 0, 100)
  local alive = {}
  for _, id in ipairs(held) do
    local owner = redis.call('HGET', wf_key('run', id), 'owner')
    if owner and alive[owner] == nil then alive[owner] = redis.call('EXISTS', P .. 'tick:' .. owner) == 1 end
    if owner and alive[owner] then
      wf_defer.list('ZADD', held_key, id, now + WF_HELD_CHECK_MS)
    else
      wf_release(id, now)
    end
  end
end

local function wf_wake_parked(id, now)
  local park = wf_key('park', id)
  local entries = redis.call('HGETALL', park)
  for k = 1, #entries, 2 do
    local parked = cjson.decode(entries[k + 1])
    if parked.at and parked.at <= now and parked.k == 'w' then
      -- A wait at its timeout whose event came first takes it: one still being delivered to it (taken
      -- out of that delivery), or the earliest kept one its run may take.
      local data, seq = wf_pending_data(cjson.encode({ id, entries[k] }), parked.e, parked.m)
      local suffix = wf_kept.suffix(parked.e, parked.m)
      local floor = wf_kept.floor(id, suffix)
      local kept_seq, kept_data
      if floor then kept_seq, kept_data = wf_kept.first(suffix, floor, now) end
      if kept_seq and (not seq or kept_seq < seq) then seq, data = kept_seq, kept_data end
      wf_kept.take(id, entries[k], parked, seq, data or 'null', now)
    elseif parked.at and parked.at <= now then
      wf_resolve_parked(id, entries[k], parked, 'null', now)
    end
  end
end

-- Claims up to `limit` due runs for `tick`; returns them as
-- { id, name, input, fence, { step, record, cut, … }, key form } each (carry-steps.lua),
-- and whether more are due (key form: the run's `ikey`, '1' for a run stored before it had one).
-- A run's hash is read once (status and what the claim carries); its parked steps only when it
-- waited or slept, or parked while held (`parks`, commit-runs.lua); the due and held lists and the
-- counts are written once for the batch (wf_defer). `busy`: the call committed runs already, so it
-- resolves no chunk of a pending event (the sender's own calls and the tick's begin do): a chunk and a
-- batch of commits in one script held Redis past chaos' 20 ms.
local function wf_claim(tick, limit, now, busy)
  local claimed = {}
  local due = wf_key('due')
  -- Held after a Redis restart (lib/tick/restart-hold.lua): none claimed, none said due (the tick ends).
  if restart.held(now) then return claimed, 0 end
  if limit <= 0 then return claimed, #redis.call('ZRANGEBYSCORE', due, '-inf', now, 'LIMIT', 0, 1) end
  wf_defer.start()
  wf_reclaim_dead(now)
  if not busy then wf_deliver_pending(now) end
  local ids = redis.call('ZRANGEBYSCORE', due, '-inf', now, 'LIMIT', 0, limit)
  -- Redis full: a claimed run's results could not be held to any bound, so none is claimed (and none is
  -- said due, so the tick ends); the runs already held go on, their commits allowed (allow-oom).
  if #ids > 0 and redis_full() then
    wf_defer.flush()
    return claimed, 0
  end
  local fence_key = wf_key('fence')
  local fence = #ids > 0 and last_fence_of(fence_key) or 0
  local left = wf_carry.CALL_BYTES
  for from = 1, #ids, 500 do redis.call('ZREM', due, unpack(ids, from, math.min(#ids, from + 499))) end
  for _, id in ipairs(ids) do
    local run = wf_key('run', id)
    local f = redis.call('HMGET', run, 'status', 'name', 'input', 'ikey', 'version', 'parks')
    local status = f[1]
    if status and not WF_TERMINAL[status] then
      if status ~= 'running' or f[6] then wf_wake_parked(id, now) end
      fence = fence + 1
      -- Its owner, fence and `updated` (when a tick took it up) in the status change's HSET.
      if status == 'running' then
        redis.call('HSET', run, 'owner', tick, 'fence', fence_text(fence), 'updated', now)
      else
        wf_set_status(id, 'running', now, { 'owner', tick, 'fence', fence_text(fence) }, f)
      end
      wf_defer.list('ZADD', wf_key('held'), id, now)
      local used
      claimed[#claimed + 1], used = wf_carry.claimed(id, fence_text(fence), left, f)
      left = left - used
    end
  end
  if #ids > 0 then fences_taken(fence_key, fence) end
  wf_defer.flush()
  local more = #redis.call('ZRANGEBYSCORE', due, '-inf', now, 'LIMIT', 0, 1)
  return claimed, more
end

-- Removes up to 100 runs that ended before `before` (workflowRetentionMs).
local function wf_expire(before)
  local ended = wf_key('ended')
  local ids = redis.call('ZRANGEBYSCORE', ended, '-inf', before, 'LIMIT', 0, 100)
  for _, id in ipairs(ids) do
    local f = redis.call('HMGET', wf_key('run', id), 'status', 'name')
    if f[1] then
      redis.call('ZREM', wf_key('s:' .. f[1]), id)
      wf_count(f[1], f[2], -1)
    end
    wf_unpark_all(id)
    redis.call('DEL', wf_key('run', id), wf_key('steps', id), wf_key('kids', id))
    redis.call('ZREM', wf_key('all'), id)
    redis.call('ZREM', ended, id)
  end
  return #ids
end
