-- Commits what executions of workflow runs did, each fenced: an item acts
-- only while its run is still held by this tick with this fence, so a
-- stale execution (its tick lost the run to another) commits nothing.
-- Every value is absolute (a step's whole record, the run's output), so
-- committing an item twice leaves what committing it once did.
-- Needs run-state.lua and kept-events.lua.
--
-- An item: id fence disposition extra steps[](name record) parks[](step kind seq ms event match)
-- The section comes packed (src/protocol/define.ts `packed`): "j<values>", then its values (the count,
-- then the items') in one value joined by the record separator (30); or, when empty or a value holds the
-- separator, as a counted section in ARGV. Either is read by lib/common/packed.lua's nested reader into
-- one table laid out as ARGV holds the section, a packed item by wf_packed_item below: splitting every
-- value with a find and a sub cost Redis 1.8x what the values cost it as ARGV
-- (bench/workflow-instructions.ts --redis).
-- disposition: c (continue: still held), y (yield: due now), r (retry: due
-- after `extra` ms), v (this deployment lacks the run's workflow version:
-- due after `extra` ms, and noted in `wf:unrunnable`, "NAME@VERSION" → "<ms>
-- <id>", which stats reads while it is recent), p (park on its parked steps),
-- d (done: `extra` is the output JSON), f (failed: `extra` is the error JSON). A run that ends drops
-- the parked steps its code left behind (wf_unpark_all); a resent end finds
-- the run ended, no longer held, and changes nothing.
-- @include lib/common/packed.lua
-- @include lib/common/packed-nested.lua
-- @include lib/workflows/run-state.lua
-- @include lib/workflows/kept-events.lua

local function wf_park(a, id, i, n, now)
  local park = wf_key('park', id)
  local steps = wf_key('steps', id)
  local resolved, marked = false, false
  for _ = 1, n do
    local step, kind, seq, ms, event, match = a[i], a[i + 1], tonumber(a[i + 2]), a[i + 3], a[i + 4], a[i + 5]
    i = i + 6
    if redis.call('HEXISTS', steps, step) == 1 and string.find(redis.call('HGET', steps, step), '"status":"completed"', 1, true) then
      resolved = true -- an event arrived while the run was held
    elseif redis.call('HEXISTS', park, step) == 0 then
      local parked = { k = kind, q = seq }
      if ms ~= '' then parked.at = now + tonumber(ms) end
      if kind == 'w' then parked.e, parked.m = event, match end
      redis.call('HSET', park, step, cjson.encode(parked))
      -- The run's hash says it has parked steps, so a claim or an end of a run that never parked reads none.
      if not marked then redis.call('HSET', wf_key('run', id), 'parks', '1') end
      marked = true
      -- A wait takes an event kept since its run started (in code order: parks come in step order).
      if kind == 'w' and wf_kept.wait(id, step, parked, now) then resolved = true end
    end
  end
  return i, resolved
end

local function wf_commit_one(tick, a, i, now)
  local id, fence, disposition, extra = a[i], a[i + 1], a[i + 2], a[i + 3]
  local run = wf_key('run', id)
  local f = redis.call('HMGET', run, 'owner', 'fence', 'status', 'name', 'parks')
  local held = f[1] == tick and f[2] == fence and f[3] == 'running'
  local n = tonumber(a[i + 4])
  i = i + 5
  if held then
    for k = i, i + 2 * (n - 1), 2 do wf_records.write(id, a[k], a[k + 1]) end
  end
  i = i + 2 * n
  local parks = tonumber(a[i])
  i = i + 1
  if not held then return i + 6 * parks, 0 end
  if disposition == 'c' then
    -- Still held: nothing to write but its steps. Its `updated` says when a tick took it up (claim-runs.lua),
    -- and wf:held is rescored by the check for dead holders, not by each commit.
  elseif disposition == 'y' then
    wf_release(id, now)
  elseif disposition == 'r' then
    wf_release(id, now + tonumber(extra))
  elseif disposition == 'v' then
    wf_release(id, now + tonumber(extra))
    local v = redis.call('HMGET', run, 'name', 'version')
    redis.call('HSET', wf_key('unrunnable'), (v[1] or '') .. '@' .. (v[2] or '1'), string.format('%.0f', now) .. ' ' .. id)
  elseif disposition == 'p' then
    local resolved
    i, resolved = wf_park(a, id, i, parks, now)
    parks = 0
    local at, left = wf_next_wake(id)
    if resolved then at = now end
    wf_release(id, at)
    if not resolved and left > 0 then
      local waiting = false
      for _, text in ipairs(redis.call('HVALS', wf_key('park', id))) do
        if cjson.decode(text).k == 'w' then waiting = true end
      end
      wf_set_status(id, waiting and 'waiting' or 'sleeping', now)
    end
  elseif disposition == 'd' or disposition == 'f' then
    wf_release(id, nil)
    if f[5] then wf_unpark_all(id) end
    local ended = disposition == 'd' and 'completed' or 'failed'
    wf_set_status(id, ended, now, { disposition == 'd' and 'output' or 'error', extra }, { f[3], f[4] })
  end
  return i + 6 * parks, 1
end

-- A packed commit's values from `pos` of `s` into V from `k`, laid out as ARGV holds a commit
-- (packed.nested's item): its short fields by one match, a record or an output by a plain find. A value
-- never holds the separator (else the section is not packed).
local function wf_packed_item(s, pos, V, k)
  local find, sub, match = string.find, string.sub, string.match
  local at
  V[k], V[k + 1], V[k + 2], at = match(s, '^([^\30]*)\30([^\30]*)\30([^\30]*)\30()', pos)
  if not at then return nil end
  local e = find(s, '\30', at, true)
  if not e then return nil end
  local steps, p = match(s, '^(%d+)\30()', e + 1)
  if not p then return nil end
  V[k + 3], V[k + 4] = e == at and '' or sub(s, at, e - 1), steps
  k = k + 5
  for _ = 1, tonumber(steps) do
    local name, r = match(s, '^([^\30]*)\30()', p)
    if not r then return nil end
    local re = find(s, '\30', r, true) or #s + 1
    V[k], V[k + 1] = name, sub(s, r, re - 1)
    k, p = k + 2, re + 1
  end
  local parks, q = match(s, '^(%d+)()', p)
  if not q then return nil end
  V[k] = parks
  k, p = k + 1, q + 1
  for _ = 1, 6 * tonumber(parks) do
    local v = find(s, '\30', p, true) or #s + 1
    V[k] = sub(s, p, v - 1)
    k, p = k + 1, v + 1
  end
  return p, k
end

-- The index in V past the commit at V[j] of a counted section (packed.nested's span), nil when its counts
-- are not whole numbers.
local function wf_commit_span(V, j)
  local steps = tonumber(V[j + 4])
  if not steps or steps < 0 or steps % 1 ~= 0 then return nil end
  j = j + 5 + 2 * steps
  local parks = tonumber(V[j])
  if not parks or parks < 0 or parks % 1 ~= 0 then return nil end
  return j + 1 + 6 * parks
end

-- Commits the section of items at ARGV[i]: 1 or 0 per item (committed[]), and the index in ARGV past it.
-- Every item is read, packed or counted, before the first is committed: a malformed section commits none.
-- The runs' list and count writes go once for the section (wf_defer, run-state.lua).
local function wf_commit_all(tick, i, now)
  local V, at, past = packed.nested(i, wf_packed_item, wf_commit_span, 'workflow commits')
  local committed = {}
  wf_defer.start()
  local j = at + 1
  for k = 1, tonumber(V[at]) do
    j, committed[k] = wf_commit_one(tick, V, j, now)
  end
  wf_defer.flush()
  return committed, past
end

-- The section of items at ARGV[i], committing nothing: its count of items, and the index in ARGV past it
-- (a packed section's count is its first value: no item read).
local function wf_commits_skip(i)
  return packed.skip(i, wf_commit_span, 'workflow commits')
end
