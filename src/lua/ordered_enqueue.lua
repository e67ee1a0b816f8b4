-- ordered_enqueue: add payloads to ordered ids (lib/ordered/state.lua has
-- the keys). A payload joins its id's sorted set by score; an identical
-- payload is stored once, with its lowest score. An id that waits keeps
-- its earliest due time, except that a new payload never cuts a retry's
-- backoff short; an id that runs gets the payload in `n:ID`, to run after
-- the current run, merged. Payload JSON is stored exactly as sent. Which
-- ids wait, back off or may run is read once per name and call (ZMSCORE of
-- `ready`, HMGET of `retries`, SMISMEMBER of `held`) and the due times are
-- written in one ZADD per key, so a payload of an id new to Redis costs
-- its own ZADD only.
-- KEYS: names
-- ARGV: prefix token tokenMs payloads[]+(name id payload score delayMs)
-- Returns: text
-- names: P.."ordered" (the set of ordered names ever enqueued).
-- payloads: name, id, payload JSON, score ('' for Redis' time in ms,
-- sequenced within the ms: lib/ordered/sequence-score.lua), delay ms.
-- Returns one character per payload, "1" stored, "0" already waiting
-- (an identical payload).
-- Replays: the call token (drawn per call) is set NX for the call window;
-- a replay finds it and answers the first run's reply, adding nothing (a
-- payload whose id ran in between would otherwise run twice). Within the
-- window a rerun could only re-add identical members and lower due times
-- to values they already hold. A key's top score within the ms is noted only
-- when an id comes twice or more in the call (only then is it read back): a
-- rerun reads the same payloads, so it notes the same tops.
-- No allow-oom flag: when Redis is full (noeviction) the first write is
-- refused and nothing is added; the caller gets a clear error.
-- maxmemory: no flag: while Redis is full it is refused with REDIS_FULL before it writes anything,
-- as enqueue. (An id given 8 payloads or more in one call keeps them in a skiplist, which holds some
-- 80 bytes more a payload than a listpack: `many_at` below.)
-- A key's `-add` set (`o:NAME:ready-add`, `o:NAME:later-add`) lives only inside one call: made,
-- read into its sorted set and deleted by it, so no replay, tick or older version ever sees one.
-- payloads come packed (src/protocol/define.ts `packed`: "j<values>", then the section's values in one
-- value) unless one holds the separator: read once (lib/common/packed.lua) into a table laid out as ARGV
-- would hold them.
-- One value where a payload was five, each handled by the client's Redis library: the tick process's
-- instructions an ordered execution fell a fifth (bench/ordered-instructions.ts); Redis' rose some
-- 2,000 a payload (the match below; bench/ordered-redis-instructions.ts). A replay reads the same value
-- the same way; a malformed one raises an error before anything is written.
-- @include lib/common/prefix-keys.lua
-- @include lib/common/packed.lua
-- @include lib/ordered/state.lua
-- @include lib/ordered/sequence-score.lua

local token = ARGV[2]
local tokenMs = ARGV[3]
-- V: the payloads' section (its count at payloadsAt, then five values a payload), ARGV itself or read
-- from its packed value (lib/common/packed.lua).
local payloadsAt = 4
local V, past
V, payloadsAt, past = packed.section(payloadsAt, 5, 'ordered payloads')
-- The section ends ARGV: a count under its values (counted form) drops none of them unseen.
if past ~= #ARGV + 1 then error('ordered payloads: ' .. (#ARGV + 1 - past) .. ' values past the payloads announced') end

local token_key = P .. 'enq:' .. token
if not redis.call('SET', token_key, '', 'NX', 'PX', tokenMs) then
  return redis.call('GET', token_key)
end
local now = now_ms()

-- Whether every registered tick keeps the `held` index (lib/ordered/state.lua):
-- then an id neither waiting nor in `held` has no payload. A tick of an
-- older version (a rolling deploy) is not in `oticks`: its ids are read as before.
local function every_tick_keeps_held()
  local ticks = redis.call('HKEYS', P .. 'ticks')
  for from = 1, #ticks, 1000 do
    local kept = redis.call('SMISMEMBER', P .. 'oticks', unpack(ticks, from, math.min(from + 999, #ticks)))
    for _, yes in ipairs(kept) do
      if yes == 0 then return false end
    end
  end
  return true
end

-- Whether each id waits in `ready`, read once per name (ZMSCORE over the
-- call's ids) instead of a ZSCORE per payload, whether a waiting id backs
-- off after a failed run (one HMGET of `retries`: a new payload never cuts
-- the backoff short; an id new in this call has none), and, for the others, whether
-- a tick may hold it (SMISMEMBER of `held`); this call's own writes keep it
-- current: 'r' waits, 'h' is held by a tick, 'f' has no payload yet, false
-- unknown (one EXISTS of p:ID tells, as for an id in `held`, which may list
-- an id an older tick let go).
local states, backing_off = {}, {}
local all_keep_held -- every_tick_keeps_held(), asked at most once a call
-- Whether some id has two payloads or more in this call: only then is a key's top score read back
-- (`tops`, lib/ordered/sequence-score.lua), so only then is it noted (a table entry and a call a
-- payload otherwise, some 600 instructions).
local repeated = false
-- name -> id -> this call's payloads of an id that came twice or more (`many_at` below reads it), and
-- whether every payload of the call is sequenced by Redis (no score of its own) with a number for its
-- delay: only then is a key made a skiplist, as nothing the call writes after can then fail part way
-- with the wide member in it.
local repeats, sequenced_only = {}, true
do
  local ids_of, i = {}, payloadsAt + 1
  for _ = 1, tonumber(V[payloadsAt]) do
    local name, id = V[i], V[i + 1]
    local ids = ids_of[name]
    if not ids then
      ids, states[name], backing_off[name], repeats[name] = {}, {}, {}, {}
      ids_of[name] = ids
    end
    if states[name][id] == nil then
      states[name][id] = false
      ids[#ids + 1] = id
    else
      repeated = true
      repeats[name][id] = (repeats[name][id] or 1) + 1
    end
    if V[i + 3] ~= '' or (V[i + 4] ~= '0' and not tonumber(V[i + 4])) then sequenced_only = false end
    i = i + 5
  end
  for name, ids in pairs(ids_of) do
    for from = 1, #ids, 1000 do
      local chunk = { unpack(ids, from, math.min(from + 999, #ids)) }
      local scores = redis.call('ZMSCORE', okey(name, 'ready'), unpack(chunk))
      local others = {}
      local waiting = {}
      for k, id in ipairs(chunk) do
        if scores[k] then
          states[name][id] = 'r'
          waiting[#waiting + 1] = id
        else
          others[#others + 1] = id
        end
      end
      if #waiting > 0 then
        local retries = redis.call('HMGET', okey(name, 'retries'), unpack(waiting))
        for k, id in ipairs(waiting) do backing_off[name][id] = retries[k] ~= false end
      end
      -- Up to 2 ids an EXISTS each costs no more than the index's reads.
      if #others > 2 then
        if all_keep_held == nil then all_keep_held = every_tick_keeps_held() end
        if all_keep_held then
          local held = redis.call('SMISMEMBER', okey(name, 'held'), unpack(others))
          for k, id in ipairs(others) do
            if held[k] == 0 then states[name][id] = 'f' end
          end
        end
      end
    end
  end
end

-- The due times go to `ready` and `later` in one ZADD per key and flag
-- after the payloads (nothing in this call reads them back): a
-- variadic ZADD applies its pairs in order, as the calls one by one would.
-- `same`: the one due time of all the group's pairs, or false once they differ.
local dues, due_groups, same = { LT = {}, NX = {} }, {}, {}
local function add_due(key, flag, due, id)
  local group = dues[flag][key]
  if not group then
    group = { key, flag }
    dues[flag][key] = group
    due_groups[#due_groups + 1] = group
    same[group] = due
  elseif same[group] ~= due then
    same[group] = false
  end
  group[#group + 1] = due
  group[#group + 1] = id
end

-- A small sorted set is a listpack, and ZADD inserts each member after a
-- walk from its head past every lower (score, member): members of one score
-- added in ascending order walk the whole set each, some 20,000
-- instructions a payload at 100 ids. In descending order each stops at the
-- head. With LT the pairs' order changes nothing (an id keeps its lowest
-- due), so an LT group of one due goes in descending member order (C's
-- sort, no Lua comparator); any other group as it came.
local function zadd_args(group)
  if group[2] ~= 'LT' or not same[group] then return group end
  local ids = {}
  for k = 4, #group, 2 do ids[#ids + 1] = group[k] end
  table.sort(ids)
  local args, due = { group[1], group[2] }, same[group]
  for k = #ids, 1, -1 do
    args[#args + 1] = due
    args[#args + 1] = ids[k]
  end
  return args
end

-- A whole ms as text ('%d'), else the number: Redis formats a number
-- argument as a float (%.17g), which costs more than the ZADD itself.
local function ms_arg(ms)
  if ms == math.floor(ms) and ms < 2 ^ 53 then return string.format('%d', ms) end
  return ms
end
local now_arg = ms_arg(now)

-- A small sorted set is a listpack: ZADD walks it from its head to insert, reading every member's
-- score as text (a strtod each; a sequenced score holds a fraction of a ms, so it is no integer the
-- listpack keeps as one), and formats the new score into it. An id given 50 payloads in calls of 10
-- paid some 25,000 Redis instructions a payload for it (bench/ordered-redis-instructions.ts --capped,
-- its capped enqueue). A key given MANY_MIN payloads or more in one call is made a skiplist before its
-- first: a member longer than any listpack value goes in, and out once the call has added them all
-- (no replay, tick or older version sees it: it lives inside this call). A skiplist's insert compares
-- doubles, and the set keeps its encoding until it empties (a merge's ZUNIONSTORE may make it a
-- listpack again); some 80 bytes more a payload while it waits (MEMORY USAGE, 50 payloads: 1.8 KB
-- as a listpack, 6.0 KB as a skiplist).
local MANY_MIN, WIDE = 8, string.rep('~', 80)
local widened, many = {}, repeated and sequenced_only
local function many_at(name, id, key)
  if (repeats[name][id] or 1) >= MANY_MIN and not widened[key] then
    widened[key] = true
    widened[#widened + 1] = key
    redis.call('ZADD', key, 0, WIDE)
  end
end

-- Each name's keys, made once a call (a concatenation a key a payload was a cost of its own).
local flags, added, named, tops, keys_of = {}, {}, {}, {}, {}
local i = payloadsAt + 1
for k = 1, tonumber(V[payloadsAt]) do
  local name, id, payload, score, delay = V[i], V[i + 1], V[i + 2], V[i + 3], V[i + 4]
  i = i + 5
  -- No delay ('0', the common case) reads no number: a tonumber is a strtod.
  local due = now_arg
  if delay ~= '0' and tonumber(delay) > 0 then due = ms_arg(now + tonumber(delay)) end
  local fresh
  local keys = keys_of[name]
  if not keys then
    keys = { ready = okey(name, 'ready'), p = okey(name, 'p:'), n = okey(name, 'n:'), later = okey(name, 'later') }
    keys_of[name] = keys
  end
  local ready = keys.ready
  local p = keys.p .. id
  local state = states[name][id]
  -- Not waiting: held by a tick if it has payloads (its run's), else new.
  if not state then state = redis.call('EXISTS', p) == 1 and 'h' or 'f' end
  if state == 'h' then
    local n = keys.n .. id
    if score == '' then score = sequenced_score(now, { p, n }, tops) end
    if many then many_at(name, id, n) end
    fresh = redis.call('ZADD', n, 'LT', score, payload)
    if repeated then note_score(tops, n, score, now) end
    add_due(keys.later, 'LT', due, id)
  elseif state == 'f' then
    -- No payload and not in `ready`: nothing to sequence after, and NX and
    -- LT add alike, so neither the score lookup nor the retries check.
    -- (Redis' time noted as the number it is: no text read back.)
    local noted = score
    if score == '' then score, noted = now_arg, now end
    if many then many_at(name, id, p) end
    fresh = redis.call('ZADD', p, 'LT', score, payload)
    if repeated then
      tops[p] = false
      note_score(tops, p, noted, now)
    end
    add_due(ready, 'LT', due, id)
    state = 'r'
  else
    if score == '' then score = sequenced_score(now, { p }, tops) end
    if many then many_at(name, id, p) end
    fresh = redis.call('ZADD', p, 'LT', score, payload)
    if repeated then note_score(tops, p, score, now) end
    add_due(ready, backing_off[name][id] and 'NX' or 'LT', due, id)
  end
  states[name][id] = state
  added[name] = (added[name] or 0) + fresh
  if not named[name] then
    named[name] = true
    redis.call('SADD', KEYS[1], name)
  end
  flags[k] = fresh == 1 and '1' or '0'
end
for _, key in ipairs(widened) do redis.call('ZREM', key, WIDE) end
-- ZADD into a listpack also walks the whole set once per member to see whether it is there
-- (about 6,000 instructions a member at 100 ids, a sixth of the enqueue). An LT group of one due
-- of 16 members or more, into a set that stays a listpack (128 members at most), goes in as a
-- set instead: SADD of the ids to a key of this call's own (hashed: no walk), then ZUNIONSTORE of
-- the key with it, the set's members weighted to the due (1 x due, exact) and the lower score
-- kept (MIN: what LT does), then DEL. Same members, same scores, same encoding after.
local UNION_MIN, LISTPACK_MAX = 16, 128
local function add_as_union(args)
  local n = (#args - 2) / 2
  if n < UNION_MIN then return false end
  local key = args[1]
  if redis.call('ZCARD', key) + n > LISTPACK_MAX then return false end
  local ids = {}
  for k = 4, #args, 2 do ids[#ids + 1] = args[k] end
  local adding = key .. '-add'
  redis.call('SADD', adding, unpack(ids))
  redis.call('ZUNIONSTORE', key, 2, key, adding, 'WEIGHTS', 1, args[3], 'AGGREGATE', 'MIN')
  redis.call('DEL', adding)
  return true
end
-- The union is tried on the group as it came (a set's order is none), and only a group left to ZADD is
-- sorted: a table.sort of 100 ids (a strcoll a comparison) cost some 2,000 instructions a payload.
for _, group in ipairs(due_groups) do
  if not (group[2] == 'LT' and same[group] and add_as_union(group)) then
    local args = zadd_args(group)
    for from = 3, #args, 2000 do
      redis.call('ZADD', args[1], args[2], unpack(args, from, math.min(from + 1999, #args)))
    end
  end
end
for name, count in pairs(added) do
  if count > 0 then redis.call('INCRBY', okey(name, 'payloads'), count) end
end
local reply = table.concat(flags)
redis.call('SET', token_key, reply, 'PX', tokenMs)
return reply
