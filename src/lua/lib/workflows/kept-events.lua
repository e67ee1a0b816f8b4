-- Kept events (eventRetentionMs): a wait parked after its event was sent
-- still takes it, if its run started before the event was sent.
-- "Before" is a sequence Redis assigns (`wf:eseq`, INCR per event), never a
-- millisecond: a start and an event can share one. A run stores the
-- sequence it started at (`eseq` in its hash, workflow_start.lua); a wait
-- takes the first kept event above both that and the last event its run
-- took for the same event and match (`took:LEN:EVENTMATCH` in the run's
-- hash), so an event sent before the run started is never taken, and two
-- waits of one run take two events, in the order sent.
-- Keys: `wf:log:LEN:EVENTMATCH` list per event and match, "SEQ:EXPIRES:DATA"
-- entries in sequence order (each event appends in the script that draws its
-- sequence), its TTL the retention, renewed by each event, and its expired
-- head dropped by each event; `wf:eseq` the sequence. A list, not a zset:
-- data over 64 bytes turns a zset into a skiplist (about 1 KB for one
-- event), while a list keeps it in one listpack (about 250 bytes).
-- Safe to run twice: taking sets `took` to an absolute sequence and writes
-- an absolute record; a wait already resolved is no longer parked.
-- A run without `eseq` (started by a release before kept events) takes only
-- the events delivered to its waits, as that release did.
-- Needs run-state.lua.
-- @include lib/workflows/run-state.lua

-- One table, not a local each: begin.lua's main chunk is near Lua's 200 locals.
-- SCAN: entries one call reads at a log's head (expired ones dropped) or past a run's floor.
local wf_kept = { SCAN = 100 }

-- Length-prefixed, as wf_wait_key: no pair of event and match names another's log.
function wf_kept.suffix(event, match)
  return #event .. ':' .. event .. match
end

function wf_kept.log(suffix)
  return wf_key('log:' .. suffix)
end

-- A kept member's sequence, expiry and data.
function wf_kept.parse(member)
  local a = string.find(member, ':', 1, true)
  local b = string.find(member, ':', a + 1, true)
  return tonumber(string.sub(member, 1, a - 1)), tonumber(string.sub(member, a + 1, b - 1)), string.sub(member, b + 1)
end

-- Gives the event its sequence and, with a retention, keeps it; returns the sequence.
function wf_kept.record(event, match, data, retention, now)
  local seq = redis.call('INCR', wf_key('eseq'))
  if retention <= 0 then return seq end
  local log = wf_kept.log(wf_kept.suffix(event, match))
  for _ = 1, wf_kept.SCAN do
    local head = redis.call('LINDEX', log, 0)
    if not head or select(2, wf_kept.parse(head)) > now then break end
    redis.call('LPOP', log)
  end
  redis.call('RPUSH', log, seq .. ':' .. string.format('%.0f', now + retention) .. ':' .. data)
  redis.call('PEXPIRE', log, retention)
  return seq
end

-- The sequence a run's waits on `suffix` take events above (nil: a run from before kept events), and
-- the last event it took there (0: none).
function wf_kept.floor(id, suffix)
  local f = redis.call('HMGET', wf_key('run', id), 'eseq', 'took:' .. suffix)
  local took = tonumber(f[2]) or 0
  if not f[1] then return nil, took end
  return math.max(tonumber(f[1]), took), took
end

-- The first kept event above `floor` not expired at `now`: its sequence and data, or nil. The log is in
-- sequence order: a binary search finds the first entry above `floor` (LINDEX, a few per call).
function wf_kept.first(suffix, floor, now)
  local log = wf_kept.log(suffix)
  local lo, hi = 0, redis.call('LLEN', log)
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if wf_kept.parse(redis.call('LINDEX', log, mid)) > floor then hi = mid else lo = mid + 1 end
  end
  for _, entry in ipairs(redis.call('LRANGE', log, lo, lo + wf_kept.SCAN - 1)) do
    local seq, expires, data = wf_kept.parse(entry)
    if expires > now then return seq, data end
  end
  return nil
end

-- The parked step resolves with the event `seq` (nil: a delivery from before kept events) and its data.
function wf_kept.take(id, step, parked, seq, data, now)
  if seq then
    local run = wf_key('run', id)
    local field = 'took:' .. wf_kept.suffix(parked.e, parked.m)
    if seq > (tonumber(redis.call('HGET', run, field)) or 0) then redis.call('HSET', run, field, seq) end
  end
  wf_resolve_parked(id, step, parked, data, now)
end

-- A waiting or sleeping run whose step resolved is due at once (a held one finds the step resolved when
-- it parks: commit-runs.lua).
function wf_kept.wake(id, now)
  local status = redis.call('HGET', wf_key('run', id), 'status')
  if status == 'waiting' or status == 'sleeping' then
    wf_set_status(id, 'running', now)
    redis.call('ZADD', wf_key('due'), now, id)
  end
end

-- The parked wait `step` takes the first kept event it may (true), or joins its event's set of waits.
function wf_kept.wait(id, step, parked, now)
  local suffix = wf_kept.suffix(parked.e, parked.m)
  local floor = wf_kept.floor(id, suffix)
  if floor then
    local seq, data = wf_kept.first(suffix, floor, now)
    if seq then
      wf_kept.take(id, step, parked, seq, data, now)
      wf_kept.wake(id, now)
      return true
    end
  end
  redis.call('SADD', wf_wait_key(parked.e, parked.m), cjson.encode({ id, step }))
  return false
end

-- The run's parked wait on (event, match) that came first in its code (lowest seq): its step and entry.
function wf_kept.earliest_wait(id, event, match)
  local entries = redis.call('HGETALL', wf_key('park', id))
  local step, first
  for k = 1, #entries, 2 do
    local p = cjson.decode(entries[k + 1])
    if p.k == 'w' and p.e == event and p.m == match and (not first or p.q < first.q) then
      step, first = entries[k], p
    end
  end
  return step, first
end
