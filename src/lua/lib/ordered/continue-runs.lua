-- Capped runs continued in place by the step that acks them (issue 46). A capped run (maxPayloads)
-- leaves its id's rest in p:ID, the id in `later` (due at its fetch's time) and its count in
-- `capped`. Acked with no arrivals behind it, the id would go back to `ready` at that due, and a
-- fetch in the same step would take it again: a step that holds its lease instead keeps the id as
-- its tick holds it (token, `held`, `running`, `later`, `capped`, and its run's payloads in p:ID: an
-- ack sent again after a failed call, or the resurrector, finds the run whole) and hands it to its
-- own fetch as a candidate (lib/ordered/fetch-ids.lua), which cuts the run's payloads and takes the
-- rest, ahead of the name's `ready` ids: only when no `ready` id is due at or before it and the
-- batch has room for all the name's candidates; otherwise it writes what the ack would have
-- (release). Either way the keys end as the ack and fetch one after the other leave them, but for
-- which fence each candidate takes (test/integration/ordered/capped-continued-same-state.test.ts).
-- Replays: the step's kept reply answers a replay before any ack (lib/tick/replay-call.lua), so a
-- candidate exists only inside the call that made it. A concurrent tick holds none of these ids.
-- maxmemory: it runs where the step runs (allow-oom) and writes less than the ack and fetch would.
-- @include lib/ordered/state.lua

local continued_runs = {}

-- The name's candidates, made on first use: ids in the order acked, their dues (as ZMSCORE read
-- them), their token fields, `at` (id -> index), `taken` (how many the fetch consumed) and the cap
-- their runs took (their payloads stay in p:ID until the fetch or a release cuts them).
function continued_runs.of(continuing, name, cap)
  local c = continuing[name]
  if not c then
    c = { ids = {}, dues = {}, fields = {}, at = {}, taken = 0, cap = cap }
    continuing[name] = c
    continuing[#continuing + 1] = name
  end
  return c
end

function continued_runs.add(c, id, due, field)
  local k = #c.ids + 1
  c.ids[k], c.dues[k], c.fields[k], c.at[id] = id, due, field, k
end

-- What the ack would have written for the candidates `ks` (indexes into c): the tick lets them go,
-- their rest is the ids' own, due as `later` said (`to_ready`), or, for an id whose rest turned out
-- empty, nowhere (as a fetch drops an id without payloads).
function continued_runs.release(tick, name, c, ks, to_ready)
  local n = #ks
  if n == 0 then return end
  local ids, fields, ready_args = {}, {}, {}
  for j = 1, n do
    local k = ks[j]
    ids[j], fields[j] = c.ids[k], c.fields[k]
    ready_args[2 * j - 1], ready_args[2 * j] = c.dues[k], c.ids[k]
  end
  local last, p_of = string.format('%d', c.cap - 1), okey(name, 'p:')
  for j = 1, n do redis.call('ZREMRANGEBYRANK', p_of .. ids[j], '0', last) end
  redis.call('HDEL', oinproc_key(tick), unpack(fields))
  redis.call('SREM', okey(name, 'held'), unpack(ids))
  redis.call('DECRBY', okey(name, 'running'), n)
  redis.call('HDEL', okey(name, 'capped'), unpack(ids))
  redis.call('ZREM', okey(name, 'later'), unpack(ids))
  if to_ready then redis.call('ZADD', okey(name, 'ready'), unpack(ready_args)) end
end

-- Indexes from..last of c's candidates.
function continued_runs.from(c, first)
  local ks = {}
  for k = first, #c.ids do ks[#ks + 1] = k end
  return ks
end

-- Before the fetch: a name's candidates may go ahead of its `ready` ids only when each is due by
-- `now` and no `ready` id is due at or before the latest of them; else all are released to `ready`
-- now, where the fetch meets them as it always did. Taken all, their order only sets which fence
-- each gets; a fetch that has room for some only releases them all first (continued_runs.drop), so
-- that `ready` orders them as it would have (a due's ids by name).
function continued_runs.check(tick, continuing, now)
  for _, name in ipairs(continuing) do
    local c = continuing[name]
    local latest = nil
    for k = 1, #c.ids do
      local due = tonumber(c.dues[k])
      if not latest or due > latest then latest = due end
    end
    if latest and (latest > now or #redis.call('ZRANGEBYSCORE', okey(name, 'ready'), '-inf', string.format('%.17g', latest), 'LIMIT', '0', '1') > 0) then
      continued_runs.drop(tick, continuing, name)
    end
  end
end

-- Releases every candidate of `name` to `ready` and forgets them.
function continued_runs.drop(tick, continuing, name)
  local c = continuing[name]
  continued_runs.release(tick, name, c, continued_runs.from(c, 1), true)
  continuing[name] = { ids = {}, dues = {}, fields = {}, at = {}, taken = 0, cap = c.cap }
end

-- After the fetch: every candidate it did not take goes back to `ready`, as the ack would have
-- put it (the fetch's `more` already says something is left due).
function continued_runs.release_left(tick, continuing)
  for _, name in ipairs(continuing) do
    local c = continuing[name]
    continued_runs.release(tick, name, c, continued_runs.from(c, c.taken + 1), true)
  end
end
