-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Ordered fetch pass: moves ready ids, oldest due first, from `ready` to
-- this tick (its oinproc hash, a token each, with a new fence), and answers
-- their payloads (lowest score first). Any tick may take any id: no shard
-- count. An id that runs is in no `ready` set, so no other tick can fetch
-- it until its holder acks or dies; payloads that arrive meanwhile go to
-- `n:ID` (ordered_enqueue.lua) and run after it.
-- Per batch and name: one ZRANGEBYSCORE, two ZRANGEs of single dues (a third
-- when they differ), ZREMRANGEBYRANK, HSET, SADD (the `held` index), EXISTS
-- (of the per-id counts) and three counters; one ZRANGE per id; for a
-- first take of 16 ids or more, an EXISTS and an HDEL (its token hash made a hashtable).
-- A step's capped runs continued in place (lib/ordered/continue-runs.lua) come first among their
-- name's due ids, none read from or written to `ready`, `held`, `running` or (with a rest still
-- behind) `capped`; their `later` due moves to this fetch's time.
-- A name with `maxPayloads` (its cap from ordered_names, lib/ordered/state.lua) reads at most
-- cap + 1 payloads an id; an id with more leaves its rest in p:ID behind the run, and the batch pays a
-- ZADD to `later` and an HSET to `capped` (the runs' counts; made anew, an EXISTS, a ZREM and an HDEL
-- more). A name without one runs as before, but for one EXISTS of `capped` (an HDEL of the taken ids'
-- fields when a previous version's resurrector left some).
-- Replays and concurrent ticks: an id is taken by one ZREMRANGEBYRANK inside
-- one script, so two ticks never take the same id; a replayed call answers
-- its kept reply (lib/tick/replay-call.lua), one group a name as the first
-- run answered it, and takes nothing (the kept reply holds a group's ids as the reply joined them
-- when they went as one text, else as a list: ordered_reply.slim; the id read past the limit, only looked
-- at, shows in the kept reply's `drained`; a capped id's rest stays in p:ID behind the run, and a
-- replay reads the run's count of it, noted in `capped` by the first run). At maxmemory it runs in begin and step
-- (allow-oom): it moves ids and adds one token each, freed by their ack (a
-- hashtable's tokens some 60 bytes more each; the field that makes it one
-- goes in the same call, so no replay or other tick sees it).
-- @include lib/common/prefix-keys.lua
-- @include lib/ordered/state.lua
-- @include lib/ordered/continue-runs.lua
-- @include lib/tick/fetch-jobs.lua
-- @include lib/tick/restart-hold.lua
-- @include lib/common/joined.lua

-- Takes `due` (ids of `name` read by due_ids, lowest due first); appends their group to `out`:
-- {name, first fence, {ids}, {payloads}, {scores}, {payload count per id,
-- or none when every id has one}, {failures, or none when no id of this
-- name ever failed}, {resurrections, likewise}, {suspects: 1 for an id a
-- dead tick left behind (lib/ordered/resurrect-ids.lua), likewise},
-- {interruptions by a tick's deadline, likewise}, {stops for a lease in
-- doubt (lib/ordered/ack-ids.lua), likewise}}. The ids' fences are
-- consecutive from the first. Flat lists keep the reply (and the copy
-- lib/tick/replay-call.lua keeps of it) small. A second take of the same
-- name in one call extends the name's group, its fences following on: one
-- group a name, as a caller of any version reads groups (any number, a name
-- in one or more). Returns how many ids it took.
local function fetch_name(tick, name, due, now, out, cap, cont)
  local n = #due
  if n == 0 then return 0 end
  -- The first `ncont` ids are capped runs this step continues (lib/ordered/continue-runs.lua): not in
  -- `ready`, held already, each due as its candidate says; the others are `ready`'s lowest.
  local ncont = cont and math.min(cont.taken_max, n) or 0
  local ready = okey(name, 'ready')
  -- Each id's due, for its token. A score in a reply is a '%.17g' formatting in Redis 7.0 (some
  -- 3,800 instructions): the lowest scores are the lowest ranks, so when the first and the last id
  -- taken share a due (one enqueue call's ids, the common wave) every id between them has it, and
  -- two are read, not one an id. `dues`: the pairs (id, due) when they differ.
  local dues, one_due = {}, nil
  if n > ncont then
    local last_rank = string.format('%d', n - ncont - 1)
    dues = redis.call('ZRANGE', ready, '0', '0', 'WITHSCORES')
    one_due = dues[2]
    if n - ncont > 1 and redis.call('ZRANGE', ready, last_rank, last_rank, 'WITHSCORES')[2] ~= one_due then
      one_due = nil
      dues = redis.call('ZRANGE', ready, '0', last_rank, 'WITHSCORES')
    end
    -- Exactly the ids just read.
    redis.call('ZREMRANGEBYRANK', ready, '0', last_rank)
  end
  local group = out.by_name and out.by_name[name]
  -- never below Redis' time, though the counter be lost (lib/common/prefix-keys.lua)
  local first = group and group.next or last_fence_of(okey(name, 'fence')) + 1
  fences_taken(okey(name, 'fence'), math.max(first + n - 1, group and group.reserved or 0))
  local ids, payloads, scores, counts = {}, {}, {}, {}
  if group then ids, payloads, scores, counts = group[3], group[4], group[5], group.counts end
  local held = {}
  local single = not group or group.single
  local before, payloads_before = #ids, #payloads
  local p_of = okey(name, 'p:')
  -- A fence's text without a string.format each (some 2,000 instructions): its digits above the
  -- last three formatted when they change, the last three as digits' texts in the token's one
  -- concatenation (a string.char made a string of its own an id, some 1,400 instructions more).
  local high, high_text
  local DIGITS = { [0] = '0', '1', '2', '3', '4', '5', '6', '7', '8', '9' }
  -- Capped ids with payloads left behind their run, for one ZADD to `later`; of the continued ids,
  -- those with a rest still behind (`later` to this fetch's time; `capped` holds their count
  -- already), those whose run took it all (out of `later` and `capped`), and those with none (let go).
  local behind, cont_behind, cont_done, cont_none = {}, {}, {}, {}
  -- The taken ids the tick did not hold before this fetch (`held`, `running`, stale `capped` notes).
  local fresh = {}
  local cap_text = cap and string.format('%d', cap)
  local last_of_run = ncont > 0 and string.format('%d', cont.cap - 1)
  -- The lists' lengths as counters: a `#` is a search of the table's array, several an id.
  local np, nids, nheld = #payloads, #ids, 0
  for j = 1, n do
    local id = due[j]
    local count
    if cap then
      -- Capped (`maxPayloads`): the run gets the `cap` lowest payloads; the rest stay in p:ID behind
      -- them, the id goes to `later` (where arrivals during a run wait, in n:ID) and `capped` notes the
      -- run's count, so that its ack cuts exactly the run's off p:ID and makes the rest, merged with
      -- any arrivals, the id's next run. Their due is this fetch's `now`: once the run ends the id
      -- waits behind every id that was due when it was taken (its turn among busy ids), not at its
      -- first due, which would put it before them all again. Nothing moves: one read an id.
      -- A continued run's payloads are still in p:ID: cut first (lib/ordered/continue-runs.lua).
      if j <= ncont then redis.call('ZREMRANGEBYRANK', p_of .. id, '0', last_of_run) end
      local items = redis.call('ZRANGE', p_of .. id, '0', cap_text, 'WITHSCORES')
      count = #items / 2
      if j <= ncont then
        if count > cap then
          count = cap
          cont_behind[#cont_behind + 1] = id
        elseif count > 0 then
          cont_done[#cont_done + 1] = id
        else
          cont_none[#cont_none + 1] = j
        end
      elseif count > cap then
        count = cap
        behind[#behind + 1] = id
      end
      for k = 1, 2 * count, 2 do
        np = np + 1
        payloads[np], scores[np] = items[k], items[k + 1]
      end
    else
      -- read_payloads_of (lib/ordered/state.lua) in place: a call an id less.
      local items = redis.call('ZRANGE', p_of .. id, '0', '-1', 'WITHSCORES')
      count = #items / 2
      for k = 1, #items, 2 do
        np = np + 1
        payloads[np], scores[np] = items[k], items[k + 1]
      end
    end
    -- An id without payloads (nothing should leave one) is dropped, not run.
    if count > 0 then
      nids = nids + 1
      ids[nids] = id
      held[nheld + 1] = name .. ' ' .. id
      nheld = nheld + 2
      if j > ncont then fresh[#fresh + 1] = id end
      local fence = first + nids - before - 1
      local low = fence % 1000
      local due_text = j <= ncont and cont.dues[j] or one_due or dues[2 * (j - ncont)]
      if fence < 1000 then
        held[nheld] = tick .. ' ' .. fence_text(fence) .. ' ' .. due_text
      else
        if fence - low ~= high then high, high_text = fence - low, fence_text((fence - low) / 1000) end
        local tens = low % 100
        held[nheld] = tick .. ' ' .. high_text .. DIGITS[(low - tens) / 100] .. DIGITS[(tens - tens % 10) / 10] .. DIGITS[tens % 10] .. ' ' .. due_text
      end
      counts[nids] = count
      if count > 1 then single = false end
    end
  end
  -- A `capped` field of an id taken here is not this run's: a previous version's resurrector (or its
  -- cancel, then its resurrector) put a capped run back whole without taking the note out, as it knows
  -- no rest in place. Out before this run's own is noted, so that no ack, cancel, resurrector or replay
  -- of the run reads another run's count (a replay would answer, and its ack cut, too few). One EXISTS a
  -- name while no `capped` is there.
  -- (A continued id's note is its own run's: kept while its rest stays behind, else out.)
  for _, id in ipairs(cont_done) do fresh[#fresh + 1] = id end
  if #fresh > 0 and redis.call('EXISTS', okey(name, 'capped')) == 1 then
    for from = 1, #fresh, 2000 do
      redis.call('HDEL', okey(name, 'capped'), unpack(fresh, from, math.min(from + 1999, #fresh)))
    end
  end
  for k = #fresh - #cont_done + 1, #fresh do fresh[k] = nil end
  if ncont > 0 then
    cont.taken = ncont
    if #cont_behind > 0 then
      -- Due at this fetch's time, as a fetch puts every capped id it leaves a rest behind.
      local due_text, pairs_of = string.format('%d', now), {}
      for k = #cont_behind, 1, -1 do
        pairs_of[#pairs_of + 1] = due_text
        pairs_of[#pairs_of + 1] = cont_behind[k]
      end
      redis.call('ZADD', okey(name, 'later'), unpack(pairs_of))
      out.behind = true
    end
    if #cont_done > 0 then redis.call('ZREM', okey(name, 'later'), unpack(cont_done)) end
    continued_runs.release(tick, name, cont, cont_none, false)
  end
  if #behind > 0 then
    -- One due for all: in descending member order each insert into a listpack stops at its head
    -- (ordered_enqueue.lua zadd_args says why), not after a walk past every id of that due.
    table.sort(behind)
    local later, capped = okey(name, 'later'), okey(name, 'capped')
    -- A zset or hash of up to 128 short members is a listpack, which ZADD, HSET and the ack's ZMSCORE,
    -- ZREM and HDEL walk once a member (some 14,000 Redis instructions an execution at 100 ids,
    -- bench/ordered-redis-instructions.ts --capped). Made anew by a batch of 16 or more, each is made
    -- a skiplist or hashtable instead, as the token hash is: a member longer than any listpack value
    -- goes first, and out at once (no replay or other tick sees it).
    local wide = #behind >= 16 and redis.call('EXISTS', later, capped) == 0 and string.rep('~', 80)
    local pairs_of, runs, due_text = {}, {}, string.format('%d', now)
    if wide then pairs_of[1], pairs_of[2], runs[1], runs[2] = due_text, wide, wide, '' end
    for k = #behind, 1, -1 do
      pairs_of[#pairs_of + 1] = due_text
      pairs_of[#pairs_of + 1] = behind[k]
      runs[#runs + 1] = behind[k]
      runs[#runs + 1] = cap_text
    end
    redis.call('ZADD', later, 'LT', unpack(pairs_of))
    redis.call('HSET', capped, unpack(runs))
    if wide then
      redis.call('ZREM', later, wide)
      redis.call('HDEL', capped, wide)
    end
    -- Their rest is due once their runs are acked (fetch_mixed's `behind`).
    out.behind = true
  end
  local took = #ids - before
  -- The group's fences stay consecutive (a dropped id took none); the counter
  -- stays at the highest reserved, above every fence handed out.
  if group then group.next, group.reserved = first + took, math.max(first + n - 1, group.reserved) end
  if took == 0 then return 0 end
  -- A hash of up to 128 short fields is a listpack, and HSET walks it from its head once per
  -- field to see whether the field is there: about 3,400 instructions a token at 100 ids. A
  -- tick's first take of 16 ids or more makes its token hash a hashtable instead (Redis never
  -- turns one back): a field longer than any listpack value, and no token's (each is 'NAME ID',
  -- with a space), set beside the tokens and deleted at once. The same tokens, looked up without a
  -- walk (some 60 bytes more each until the tick acks them). (No local of the file's own: begin's
  -- main function is near Lua's 200 locals.)
  local inproc = oinproc_key(tick)
  if took >= 16 and redis.call('EXISTS', inproc) == 0 then
    redis.call('HSET', inproc, string.rep('~', 80), '', unpack(held))
    redis.call('HDEL', inproc, string.rep('~', 80))
  else
    redis.call('HSET', inproc, unpack(held))
  end
  if #fresh > 0 then
    redis.call('SADD', okey(name, 'held'), unpack(fresh))
    redis.call('INCRBY', okey(name, 'running'), #fresh)
  end
  redis.call('DECRBY', okey(name, 'payloads'), #payloads - payloads_before)
  local per_id = {}
  local counted = ids_counted.any(name)
  for w, what in ipairs(ids_counted.names) do
    local list = group and group[6 + w] or {}
    if counted and redis.call('EXISTS', okey(name, what)) == 1 then
      local read = redis.call('HMGET', okey(name, what), unpack(ids, before + 1))
      for k = #list + 1, before do list[k] = 0 end
      for k = 1, took do list[before + k] = tonumber(read[k]) or 0 end
    elseif #list > 0 then
      for k = before + 1, #ids do list[k] = 0 end
    end
    per_id[w] = list
  end
  if group then
    group.single = single
    group[6] = single and {} or counts
    for w = 1, 5 do group[6 + w] = per_id[w] end
    return took
  end
  group = { name, first, ids, payloads, scores, single and {} or counts, per_id[1], per_id[2], per_id[3], per_id[4], per_id[5] }
  -- Named fields are not part of the reply (Redis reads a table's array part).
  group.counts, group.single, group.next, group.reserved = counts, single, first + took, first + n - 1
  out[#out + 1] = group
  out.by_name = out.by_name or {}
  out.by_name[name] = group
  return took
end

-- The due ids of the names, up to `limit` in all, read one name after another from a name that
-- turns with the clock, so that no name always comes last: { { name, due ids }, ... } (names with
-- some), how many, and whether any is left due (one read past a name's share, or a name not
-- looked at that has one). Only reads: fetch_mixed takes a prefix of them once it knows how many.
local function due_ids(tick, names, limit, now, continuing)
  local looks, read, more = {}, 0, false
  -- Held after a Redis restart (lib/tick/restart-hold.lua): no id is handed out.
  if restart.held(now) then return looks, read, more end
  local start = now % #names
  for r = 0, #names - 1 do
    if read >= limit then
      -- The names not looked at: up to 8 are asked for one due id each (a fetch that took all
      -- there is then says so, and its tick asks no step that would find nothing); past 8, more.
      -- A name with continued runs has some due (lib/ordered/continue-runs.lua).
      if #names - r > 8 then more = true end
      for k = r, #names - 1 do
        if more then break end
        local name = names[(start + k) % #names + 1]
        local cont = continuing and continuing[name]
        more = (cont and #cont.ids > 0)
          or #redis.call('ZRANGEBYSCORE', okey(name, 'ready'), '-inf', string.format('%d', now), 'LIMIT', '0', '1') > 0
      end
      break
    end
    local name, left = names[(start + r) % #names + 1], limit - read
    -- Continued capped runs first (lib/ordered/continue-runs.lua: none is due after a `ready` id).
    local cont = continuing and continuing[name]
    -- More than there is room for: all go to `ready` first, which orders them (continued_runs.check).
    if cont and #cont.ids > left then
      continued_runs.drop(tick, continuing, name)
      cont = nil
    end
    local due, ncont = {}, 0
    if cont and #cont.ids > 0 then
      ncont = #cont.ids
      for k = 1, ncont do due[k] = cont.ids[k] end
      cont.taken_max = ncont
      left = left - ncont
    end
    -- Integers as text ('%d'): a number argument costs Redis a float formatting.
    local ready_due = redis.call('ZRANGEBYSCORE', okey(name, 'ready'), '-inf', string.format('%d', now), 'LIMIT', '0', string.format('%d', left + 1))
    if #ready_due > left then
      more = true
      ready_due[#ready_due] = nil
    end
    for k = 1, #ready_due do due[ncont + k] = ready_due[k] end
    if #due > 0 then looks[#looks + 1] = { name, due, cont = ncont > 0 and cont or nil } end
    read = read + #due
  end
  return looks, read, more
end

-- A batch shared by plain jobs and ordered ids: ordered ids take up to half
-- first, plain jobs the rest, then ordered ids whatever plain jobs left.
-- Neither starves the other, and either alone fills the whole batch. The
-- ordered ids due are read first (due_ids, up to the batch), the plain fetch
-- is sized by their first half, and then the ids are taken in one take: the
-- same ids, fences and groups two takes (half, then the rest) would give, with
-- each name's reads and writes made once (a second take cost some ten calls).
-- The plain fetch between the read and the take touches no ordered key. With
-- no ordered names it is lib/tick/fetch-jobs.lua's fetch and nothing more.
-- Returns the plain groups (lib/tick/fetch-jobs.lua), the ordered groups, the
-- flow part of the fetch (lib/tick/fetch-jobs.lua; nil when it met no flow job)
-- and whether it took everything due: the plain queues came back short (none
-- capped) and no ordered id is left due. A fetch that filled its batch says so
-- (the tick's `drained`), and the tick then acks in finish instead of asking
-- again in a step that would find nothing (issue 46). Without ordered names,
-- false: a short fetch already says it. Last, `behind`: a capped id it took left
-- payloads behind its run, due again once the run is acked, so a tick that took
-- everything due asks again with those acks (one step a batch: the tick's
-- `drained` 2) rather than ending with them.
local function fetch_mixed(tick, batch, queues, picks, names, now, counted, continuing)
  if #names == 0 then
    local plain, flowed = fetch(tick, batch, queues, picks, counted)
    return plain, {}, flowed, false
  end
  local ordered = {}
  local looks, read, more_due = due_ids(tick, names, batch, now, continuing)
  local first = math.min(read, math.ceil(batch / 2))
  local plain, flowed = fetch(tick, batch - first, queues, picks, counted)
  local plain_got = 0
  for g = 2, #plain, 4 do plain_got = plain_got + #plain[g] end
  local plain_short = plain_got < batch - first and not (flowed and flowed[1] == 1)
  -- What plain jobs left, never less than the first half (plain_got <= batch - first).
  local take = math.min(read, batch - plain_got)
  if take < read then more_due = true end
  for _, look in ipairs(looks) do
    if take <= 0 then break end
    local name, due = look[1], look[2]
    if look.cont and take < look.cont.taken_max then
      -- Room for some continued runs only: all go to `ready`, read again in its order.
      continued_runs.drop(tick, continuing, name)
      look.cont = nil
      due = redis.call('ZRANGEBYSCORE', okey(name, 'ready'), '-inf', string.format('%d', now), 'LIMIT', '0', string.format('%d', take))
    end
    for k = #due, take + 1, -1 do due[k] = nil end
    take = take - #due
    fetch_name(tick, name, due, now, ordered, names.caps and names.caps[name], look.cont)
  end
  return plain, ordered, flowed, plain_short and not more_due, ordered.behind == true
end

-- lib/tick/replay-call.lua keeps a copy of each reply for replays; the ordered
-- groups go in it without their payloads and scores, which can be large.
-- A replay reads them again (rehydrate): it only ever comes before the
-- tick's next call (later ones are stale), while the tick still holds the
-- ids, and a held id's payloads do not change (arrivals go to n:ID).
-- (One local for the three: begin's main function is near Lua's 200 locals.)
-- Returns the kept groups and the replied ones (ordered_reply.joined): the ids are kept as the
-- reply joined them when they went as one text, one string to encode, not one an id (some 700
-- instructions an id).
local ordered_reply = {}
function ordered_reply.slim(groups)
  local slim, replied = {}, ordered_reply.joined(groups)
  for g, group in ipairs(groups) do
    local ids = type(replied[g][3]) == 'string' and replied[g][3] or group[3]
    slim[g] = { group[1], group[2], ids, {}, {}, {}, group[7], group[8], group[9], group[10], group[11] }
  end
  return slim, replied
end

-- The groups as the reply carries them: each group's ids, payloads and scores joined
-- (lib/common/joined.lua), one value each where one a text cost Redis a reply item and the
-- client its decoding (some 300 a batch of 100 ids). The kept reply keeps the ids, without
-- payloads and scores (ordered_reply.slim; ordered_reply.rehydrate reads them and joins them
-- again, so a replay answers what the first run did).
function ordered_reply.joined(groups)
  local out = {}
  for g, group in ipairs(groups) do
    local copy = {}
    for k = 1, #group do copy[k] = group[k] end
    copy[3], copy[4], copy[5] = joined.texts(group[3]), joined.texts(group[4]), joined.texts(group[5], true)
    out[g] = copy
  end
  return out
end

function ordered_reply.rehydrate(kept, at)
  for _, group in ipairs(kept[at] or {}) do
    if type(group[3]) == 'string' then
      -- Ids kept joined (ordered_reply.slim): none holds the separator, so each one ends an id.
      local _, separators = string.gsub(group[3], joined.SEPARATOR, '')
      group[3] = joined.split(group[3], separators + 1, 'kept ordered ids')
    end
    local payloads, scores, counts, single = {}, {}, {}, true
    -- A capped run's rest stays behind it in p:ID: its count read back (`capped`, noted by the fetch).
    local runs = redis.call('EXISTS', okey(group[1], 'capped')) == 1
      and redis.call('HMGET', okey(group[1], 'capped'), unpack(group[3])) or {}
    for k, id in ipairs(group[3]) do
      counts[k] = read_payloads(group[1], id, payloads, scores, tonumber(runs[k]))
      if counts[k] ~= 1 then single = false end
    end
    group[4], group[5], group[6] = payloads, scores, single and {} or counts
  end
  -- Joined as the first run's reply was: the texts alone decide how (lib/common/joined.lua).
  if kept[at] then kept[at] = ordered_reply.joined(kept[at]) end
  return kept
end
