-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Ordered ack pass: settles the ids a tick ran. An entry acts only while
-- the tick still holds the id: its token is in the tick's oinproc hash,
-- with the fence it was fetched with. A tick that lost its lease and was
-- resurrected finds its hash emptied by the resurrector, whether the id
-- waits in `ready` again or another tick holds it now, and touches
-- nothing. Run twice, the second run finds its tokens gone and does
-- nothing; callers also answer replays from lib/tick/replay-call.lua first.
-- A name's acked ids come packed or counted (ordered_successes below): all are read before this
-- pass writes anything, a replay reads them alike, and reading them adds nothing at maxmemory.
-- An id the client read with U+FFFD (stored bytes not UTF-8) is found by its fence (stored_id below):
-- a replay finds no token of that fence left and does nothing; the lookup only reads.
-- With metrics on, the entries whose token it held are counted
-- (lib/metrics/record-ordered-runs.lua; the successes tallied by text as they are settled, in the
-- call's own tables): a replay holds none, counts none.
--   (successes, grouped by name) the run's payloads are done; payloads that
--      arrived meanwhile become the id's, due when they asked
--   r  failed, will retry: payloads back, merged with the arrivals, due in
--      DELAY ms from now (a new payload does not cut the backoff short)
--   d  dead: the run's payloads go to `o:NAME:dead` in one entry (ENTRY is
--      its JSON head, written by the client; the payloads are appended as
--      stored, never re-encoded); arrivals run as a fresh id
--   u  dead without running (poison, malformed payloads): as d, not
--      counted as processed or failed
--   q  not started: back to ready with every payload, keeping its place
--   i  interrupted at the deadline: as q, counted in `interruptions`
--      (apart from `resurrections`: no tick died, so it is no suspect and
--      never poison; one that always overruns ends dead as too long)
--   l  stopped for a lease in doubt: as q, counted in `doubts` (one that
--      always blocks its tick ends as a failed run, src/ordered/execute.ts)
--   c  cancelled (the tick heard of its cancel): recorded cancelled
--      (lib/ordered/cancel-ids.lua), not counted as processed
-- Any run of the tick marked cancelled is settled as cancelled whatever its
-- entry says: the cancel was answered before this ack ran, so it wins over
-- the handler's success, failure or put-back (as for plain jobs,
-- lib/tick/ack-jobs.lua). The marks are the table ack() read (`marks`);
-- those settled here are taken out of it.
-- @include lib/common/prefix-keys.lua
-- @include lib/common/packed.lua
-- @include lib/ordered/state.lua
-- @include lib/ordered/continue-runs.lua
-- @include lib/metrics/record-runs.lua
-- @include lib/metrics/record-ordered-runs.lua
-- @include lib/tick/ack-jobs.lua
-- @include lib/ordered/cancel-ids.lua

-- Is `token` this tick's, for the execution with `fence`? Returns the index
-- where the token's due time starts (it follows "TICK FENCE ", as this tick's
-- fetch wrote it), or nil. A plain find at 1 makes no string.
local function holds(token, tick, fence)
  local prefix = tick .. ' ' .. fence .. ' '
  if token and string.find(token, prefix, 1, true) == 1 then return #prefix + 1 end
  return nil
end

-- The tokens of `fields` in the tick's hash `inproc` (false where none). A
-- small hash is a listpack, which HMGET walks from its head for each field:
-- for many fields it is read whole instead (at 100 ids, a fifth of the cost).
-- A hashtable (a fetch of 16 ids or more makes one: lib/ordered/fetch-ids.lua) is read by HMGET.
-- OBJECT by pcall: a managed Redis may refuse it (Upstash lists no OBJECT), and then the hash is
-- read whole, as a listpack is: the same tokens.
local function tokens_of(inproc, fields)
  if #fields < 16 or redis.pcall('OBJECT', 'ENCODING', inproc) == 'hashtable' then
    return redis.call('HMGET', inproc, unpack(fields))
  end
  local all, by_field, tokens = redis.call('HGETALL', inproc), {}, {}
  for k = 1, #all, 2 do by_field[all[k]] = all[k + 1] end
  for k = 1, #fields do tokens[k] = by_field[fields[k]] or false end
  return tokens
end

-- An id whose stored bytes are not UTF-8 (written by something other than tickq) comes back as the
-- client read it, U+FFFD in place of those bytes, and names no field: its run is the one of `name`
-- holding `fence` (fences are unique within a name: lib/ordered/fetch-ids.lua). Its stored id and
-- token, or nil. Only an id holding U+FFFD whose token is missing pays the hash's read.
local REPLACED = '\239\191\189'
local function stored_id(inproc, tick, name, id, fence)
  if not string.find(id, REPLACED, 1, true) then return nil end
  local all, head, prefix = redis.call('HGETALL', inproc), name .. ' ', tick .. ' ' .. fence .. ' '
  for k = 1, #all, 2 do
    if string.sub(all[k], 1, #head) == head and string.find(all[k + 1], prefix, 1, true) == 1 then
      return string.sub(all[k], #head + 1), all[k + 1]
    end
  end
  return nil
end

-- The name's acked runs are `count` pairs (id, fence) in V from V[at + 1] (ordered_successes).
-- `with_dues`: answer each run's due time (the metrics want it); else none.
local function settle_success(tick, name, V, at, count, marks, now, with_dues, cap, continuing)
  local inproc, p_of = oinproc_key(tick), okey(name, 'p:')
  local fields = {}
  for k = 1, count do fields[k] = name .. ' ' .. V[at - 1 + 2 * k] end
  local tokens = tokens_of(inproc, fields)
  local prior = continuing and continuing[name]
  local mine, gone, payload_keys, dues, n_mine = {}, {}, {}, {}, 0
  local cancelled_again = 0
  for k = 1, count do
    local id, fence = V[at - 1 + 2 * k], V[at + 2 * k]
    if not tokens[k] then
      local stored, token = stored_id(inproc, tick, name, id, fence)
      if stored then id, fields[k], tokens[k] = stored, name .. ' ' .. stored, token end
    end
    local held = holds(tokens[k], tick, fence)
    -- A run this call continues already (acked in an earlier group) is settled: its token stays.
    if prior and prior.at[id] then held = nil end
    -- A cancelled run keeps no due: it is no run for the metrics.
    if marks and take_ordered_mark(marks, name, fence, id) and held then
      cancelled_again = cancelled_again + settle_ordered_cancelled(tick, name, id, fence, now)
    elseif held then
      -- The due after the token's prefix: token_due's pattern cost some 5,000 instructions a run.
      -- Read as text: the metrics make it a number once (lib/metrics/record-ordered-runs.lua).
      if with_dues then dues[k] = string.sub(tokens[k], held) end
      n_mine = n_mine + 1
      mine[n_mine], gone[n_mine], payload_keys[n_mine] = id, fields[k], p_of .. id
    end
  end
  if n_mine == 0 then return 0, cancelled_again, dues end
  local later_dues = redis.call('EXISTS', okey(name, 'later')) == 1 and redis.call('ZMSCORE', okey(name, 'later'), unpack(mine))
  -- Whether each capped run had arrivals (n:ID) behind it: one EXISTS of them all, not one an id (no
  -- arrival during its run is the common case: a command an execution less, some 1,300 Redis
  -- instructions). Only reads: a replay or a concurrent tick reads what this one would.
  local arrived, n_of = {}, okey(name, 'n:')
  if cap and later_dues then
    local listed = {}
    for k = 1, #mine do
      if later_dues[k] then listed[#listed + 1] = n_of .. mine[k] end
    end
    for from = 1, #listed, 1000 do
      if redis.call('EXISTS', unpack(listed, from, math.min(from + 999, #listed))) > 0 then
        for k = 1, #mine do arrived[k] = later_dues[k] and redis.call('EXISTS', n_of .. mine[k]) == 1 end
        break
      end
    end
  end
  -- A capped run with its rest behind it and no arrivals, acked by a step that holds the lease, is
  -- continued in place (`continuing`, lib/ordered/continue-runs.lua): it keeps its token, `held`,
  -- `running`, `later` and `capped`, and its run's payloads, until this step's fetch cuts them and
  -- takes its rest or gives it back, instead of leaving them here to have the fetch write them again.
  -- Until then it is a run its tick holds, unacked: were the call to fail past this point, an ack
  -- sent again, or the resurrector, would find it whole.
  local cont = cap and later_dues and continuing and continued_runs.of(continuing, name, cap)
  if cont then
    local kept_gone, kept_mine = {}, {}
    for k = 1, #mine do
      if later_dues[k] and not arrived[k] then
        continued_runs.add(cont, mine[k], later_dues[k], gone[k])
      else
        kept_gone[#kept_gone + 1], kept_mine[#kept_mine + 1] = gone[k], mine[k]
      end
    end
    if #kept_mine > 0 then
      redis.call('HDEL', inproc, unpack(kept_gone))
      redis.call('SREM', okey(name, 'held'), unpack(kept_mine))
      redis.call('DECRBY', okey(name, 'running'), #kept_mine)
    end
  else
    redis.call('HDEL', inproc, unpack(gone))
    redis.call('SREM', okey(name, 'held'), unpack(mine))
    redis.call('DECRBY', okey(name, 'running'), #mine)
  end
  -- A capped name's runs with something behind them (`later`): a rest, left in p:ID by the fetch
  -- (`capped` noted it), or arrivals (n:ID). The run took the `cap` lowest of p:ID (its own cap: this
  -- tick fetched it), cut off; whatever is left stays. Every other run's p:ID goes whole.
  local whole, cut = payload_keys, nil
  if cap and later_dues then
    whole, cut = {}, {}
    local last = string.format('%d', cap - 1)
    for k = 1, #mine do
      if later_dues[k] and not (cont and cont.at[mine[k]]) then
        cut[#cut + 1] = mine[k]
        redis.call('ZREMRANGEBYRANK', payload_keys[k], '0', last)
      elseif not later_dues[k] then
        whole[#whole + 1] = payload_keys[k]
      end
    end
    if #cut > 0 then redis.call('HDEL', okey(name, 'capped'), unpack(cut)) end
  end
  if #whole > 0 then redis.call('DEL', unpack(whole)) end
  if ids_counted.any(name) then
    for _, what in ipairs(ids_counted.names) do
      if redis.call('EXISTS', okey(name, what)) == 1 then redis.call('HDEL', okey(name, what), unpack(mine)) end
    end
  end
  local ready_again = 0
  if later_dues then
    -- What waited behind the runs (arrivals, or a capped run's rest) becomes the ids' own, ready at
    -- its due: promote_arrivals (lib/ordered/state.lua) for all of them, `later` and `ready` written
    -- once each (a capped name has some behind almost every run). A capped run's rest is in p:ID
    -- already: arrivals, if any, are merged into it.
    local promoted, ready_args, one_due = {}, {}, nil
    for k = 1, #mine do
      if later_dues[k] and not (cont and cont.at[mine[k]]) then
        local arrivals = n_of .. mine[k]
        if not cut then
          redis.call('RENAME', arrivals, payload_keys[k])
        elseif arrived[k] then
          -- An arrival identical to a payload of the rest (both counted waiting) is one payload once merged.
          local both = redis.call('ZCARD', payload_keys[k]) + redis.call('ZCARD', arrivals)
          local merged = redis.call('ZUNIONSTORE', payload_keys[k], 2, payload_keys[k], arrivals, 'AGGREGATE', 'MIN')
          if merged < both then redis.call('DECRBY', okey(name, 'payloads'), both - merged) end
          redis.call('DEL', arrivals)
        end
        promoted[#promoted + 1] = mine[k]
        ready_args[#ready_args + 1] = later_dues[k]
        ready_args[#ready_args + 1] = mine[k]
        if one_due == nil then one_due = later_dues[k] elseif one_due ~= later_dues[k] then one_due = false end
      end
    end
    if #promoted > 0 then
      redis.call('ZREM', okey(name, 'later'), unpack(promoted))
      -- One due for all (a capped fetch's rest: its `now`): descending member order, so each insert
      -- into a listpack stops at its head (ordered_enqueue.lua zadd_args); else as they came.
      if one_due and #promoted > 1 then
        table.sort(promoted)
        ready_args = {}
        for k = #promoted, 1, -1 do
          ready_args[#ready_args + 1] = one_due
          ready_args[#ready_args + 1] = promoted[k]
        end
      end
      -- Made anew by 16 ids or more, `ready` is made a skiplist (lib/ordered/fetch-ids.lua says why):
      -- a ZADD into a listpack walks it once an id to see whether the id is there.
      local ready = okey(name, 'ready')
      local wide = #promoted >= 16 and redis.call('EXISTS', ready) == 0 and string.rep('~', 80)
      if wide then
        table.insert(ready_args, 1, wide)
        table.insert(ready_args, 1, ready_args[2])
      end
      redis.call('ZADD', ready, unpack(ready_args))
      if wide then redis.call('ZREM', ready, wide) end
    end
    ready_again = #promoted
  end
  return #mine, ready_again + cancelled_again, dues
end

-- Returns 1 if the entry acted (the token was this tick's), 1 if the id is
-- ready again at once (arrivals behind a dead run), dead-set evictions, the
-- id's due time when it ran (for lib/metrics/record-ordered-runs.lua; nil for
-- a run settled as cancelled, which is no run), and true when cancelled.
local function settle_other(tick, kind, name, id, fence, extra, now, dead_max, dead_max_age, marks, capped, continued)
  local inproc, field = oinproc_key(tick), name .. ' ' .. id
  local token = redis.call('HGET', inproc, field)
  if not token then
    local stored, its = stored_id(inproc, tick, name, id, fence)
    if stored then id, field, token = stored, name .. ' ' .. stored, its end
  end
  -- A run this call continues (its success settled it; lib/ordered/continue-runs.lua) keeps its token.
  if continued and continued.at[id] then return 0, 0, 0, nil end
  local marked = take_ordered_mark(marks, name, fence, id)
  local held = holds(token, tick, fence)
  if not held then return 0, 0, 0, nil end
  if marked or kind == 'c' then return 1, settle_ordered_cancelled(tick, name, id, fence, now), 0, nil, true end
  local due = tonumber(string.sub(token, held))
  redis.call('HDEL', inproc, field)
  redis.call('SREM', okey(name, 'held'), id)
  redis.call('DECRBY', okey(name, 'running'), 1)
  -- A capped run with its rest behind it in p:ID: how many payloads it took.
  local run = capped and capped_run.take(name, id, true)
  if kind == 'q' or kind == 'i' or kind == 'l' then
    requeue(name, id, due, (kind == 'i' and 'interruptions') or (kind == 'l' and 'doubts') or nil, run)
    return 1, 0, 0, due
  end
  redis.call('HDEL', okey(name, 'resurrections'), id)
  redis.call('HDEL', okey(name, 'interruptions'), id)
  redis.call('HDEL', okey(name, 'suspects'), id)
  redis.call('HDEL', okey(name, 'doubts'), id)
  if kind == 'r' then
    merge_back(name, id, run)
    redis.call('HINCRBY', okey(name, 'retries'), id, 1)
    redis.call('ZADD', okey(name, 'ready'), now + tonumber(extra), id)
    return 1, 0, 0, due
  end
  local p, payloads, scores = okey(name, 'p:' .. id), {}, {}
  read_payloads(name, id, payloads, scores, run)
  local now_sec = now / 1000
  local dead = okey(name, 'dead')
  redis.call('ZADD', dead, now_sec, extra .. ',"payloads":[' .. table.concat(payloads, ',') .. '],"scores":[' .. table.concat(scores, ',') .. ']}')
  redis.call('HDEL', okey(name, 'retries'), id)
  local evicted = trim_dead(now_sec, dead_max, dead_max_age, dead)
  if not run then
    redis.call('DEL', p)
    return 1, promote_arrivals(name, id, tonumber(redis.call('ZSCORE', okey(name, 'later'), id))), evicted, due
  end
  -- The dead run's payloads alone leave p:ID: its rest, merged with any arrivals, runs as a fresh id
  -- (already counted waiting: merge_back adds nothing).
  redis.call('ZREMRANGEBYRANK', p, '0', string.format('%d', run - 1))
  local rest_due = merge_back(name, id, 0)
  redis.call('ZADD', okey(name, 'ready'), rest_due or now, id)
  return 1, 1, evicted, due
end

-- One name's successes from ARGV[j]: its ids and fences, packed or counted (lib/common/packed.lua: one
-- value where an id was two, each handled by the client's Redis library, bench/ordered-instructions.ts),
-- as the table holding them (ARGV itself when counted) and where in it: the count at `at`, then the pairs;
-- and the index in ARGV past them. Read in place, not copied into lists of their own.
local function ordered_successes(j)
  local V, at, after = packed.section(j, 2, 'ordered acks')
  return V, at, tonumber(V[at]), after
end

-- Reads, from ARGV[i]: the successes grouped by name (n names, then for
-- each: name and its ids and fences, ordered_successes), then the other entries
-- (n, then n groups of kind, name, id, fence, extra), whose count may carry
-- the metrics trailer (lib/metrics/record-ordered-runs.lua) with its entries
-- after them, packed, then its two values per other entry. Absent: nothing.
-- `marks`: the tick's cancel marks as ack() read them (nil: none); `caps`: the tick's capped names
-- (ordered_names' `caps`), whose runs may have a rest behind them in p:ID; `continuing`: a step's table
-- of the capped runs it continues (lib/ordered/continue-runs.lua), nil elsewhere. Returns ids
-- made ready again (arrivals behind a finished run) and dead-set evictions.
local function ordered_ack(tick, i, now, dead_max, dead_max_age, marks, caps, continuing)
  local processed, failed, ready_again, evicted = 0, 0, 0, 0
  -- The successes are read first, then the metrics trailer: without it no run is noted (a table a run).
  local successes = {}
  local from = i + 1
  for g = 1, tonumber(ARGV[i]) or 0 do
    local V, at, count, after = ordered_successes(from + 1)
    successes[g] = { ARGV[from], V, at, count }
    from = after
  end
  local others, metrics = metrics_header(ARGV[from] or '0')
  -- The trailer follows the others (five values each): the successes' runs packed, read before
  -- anything is written, then two values an other entry.
  local tallies, entries, others_at = metrics and {}, nil, nil
  if metrics then
    local V, at, after = packed.section(from + 5 * tonumber(others) + 1, 3, 'ordered metrics')
    entries, others_at = { V = V, at = at + 1, last = at + 1 + 3 * V[at], left = 0 }, after
  end
  for _, group in ipairs(successes) do
    local name, count = group[1], group[4]
    local settled, again, dues = settle_success(tick, name, group[2], group[3], count, marks, now, metrics ~= nil, caps and caps[name], continuing)
    if metrics then ordered_tally(tallies, name, dues, count, entries) end
    processed, ready_again = processed + settled, ready_again + again
  end
  local runs = {}
  i = from
  for _ = 1, tonumber(others) do
    local kind = ARGV[i + 1]
    local acted, again, gone, due, cancelled = settle_other(tick, kind, ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5], now, dead_max, dead_max_age, marks, caps and caps[ARGV[i + 2]] ~= nil, continuing and continuing[ARGV[i + 2]])
    if acted == 1 and not cancelled and (kind == 'r' or kind == 'd') then
      processed, failed = processed + 1, failed + 1
    end
    local at = #runs
    runs[at + 1], runs[at + 2], runs[at + 3] = ARGV[i + 2], due or false, kind
    ready_again, evicted = ready_again + again, evicted + gone
    i = i + 5
  end
  if metrics then record_ordered_runs(runs, others_at, metrics.retention, now, tallies) end
  local day = day_of(now / 1000)
  bump('processed', processed, day)
  bump('failed', failed, day)
  return ready_again, evicted
end
