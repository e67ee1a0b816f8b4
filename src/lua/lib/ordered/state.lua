-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Ordered jobs by id (after Lowkiq, without its fixed shards). Keys of an
-- ordered job NAME (names hold no ':' or whitespace, ids may hold anything):
--   o:NAME:ready     zset  id → due ms; ids waiting, none of them running
--   o:NAME:p:ID      zset  payload JSON → score: the id's payloads (while it
--                          runs: the payloads its run was given, its lowest;
--                          with `maxPayloads`, the rest past the cap stay
--                          behind them, and `capped` says how many ran)
--   o:NAME:capped    hash  id → payloads its run took, for a running id whose
--                          p:ID holds more (lib/ordered/fetch-ids.lua): the
--                          rest waits behind the run, due at the fetch
--   o:NAME:later     zset  id → earliest due ms of payloads that arrived
--                          while the id ran (or of a capped run's rest):
--                          they run after it, merged
--   o:NAME:n:ID      zset  the payloads that arrived while the id ran
--   o:NAME:retries   hash  id → failures so far (absent: none)
--   o:NAME:resurrections hash id → times its tick died while it ran alone
--   o:NAME:interruptions hash id → times a tick's deadline interrupted it
--                          (no death: counted apart, never poison)
--   o:NAME:suspects  hash  id → 1: a dead tick left it behind (lib/tick/run-solo.lua)
--   o:NAME:doubts    hash  id → times its run was stopped for a lease in doubt
--   o:NAME:fence     string the last fence handed out (lib/common/prefix-keys.lua)
--   o:NAME:running   string ids running now
--   o:NAME:payloads  string payloads waiting (in p: keys of ids not running,
--                          a capped run's rest, and n: keys), kept as they move
--   o:NAME:dead      zset  failed_at → the id's dead entry
--   o:NAME:held      set   ids a tick fetched, taken out when it lets them go:
--                          enqueue's one read instead of an EXISTS of p:ID
--                          per id (it may keep an id a tick of an older
--                          version let go: enqueue checks a member's p:ID);
--                          at most the ids ticks hold, so no growth at maxmemory
--   oticks           set   ticks that keep `held` (begin.lua adds a tick that
--                          serves ordered names). While every registered tick
--                          is in it, an id in neither `ready` nor `held` has
--                          no payload; a tick of an older version holds ids
--                          `held` does not list, so enqueue reads p:ID then
--   (what a cancel takes is kept in `cancelled` with plain jobs: lib/ordered/cancel-ids.lua)
--   oinproc:TICK     hash  "NAME ID" → "TICK FENCE DUE", the ids a tick
--                          holds: its token for each
-- An id with payloads is in `ready`, or held by exactly one tick (its
-- p:ID exists and it is in no `ready`). Exclusive by id: only fetch moves
-- an id from ready to a tick, and only that tick's ack (its token still in
-- its own oinproc hash, with the fence it was fetched with) or the
-- resurrector (once the tick's lease is gone; it empties the dead tick's
-- hash as it requeues) moves it back. A tick that lost its lease and was
-- resurrected finds its tokens gone and touches nothing, whoever holds the
-- id now.
-- @include lib/common/prefix-keys.lua

local function okey(name, what)
  return P .. 'o:' .. name .. ':' .. what
end

local function oinproc_key(tick)
  return P .. 'oinproc:' .. tick
end

-- The hashes of per-id counts a run carries (`ids_counted.names`);
-- `ids_counted.any` reads whether any exists in one command (most names
-- never fail: none does). A table, not locals: begin.lua's includes are
-- near Lua's 200 locals.
local ids_counted = { names = { 'retries', 'resurrections', 'suspects', 'interruptions', 'doubts' } }
function ids_counted.any(name)
  local keys = {}
  for k, what in ipairs(ids_counted.names) do keys[k] = okey(name, what) end
  return redis.call('EXISTS', unpack(keys)) > 0
end

-- The due time a token carries (the id's due when it was fetched).
-- Anchored: the unanchored '(%S+)$' tried every start and backtracked each
-- word, some 40,000 instructions a token, more than the rest of an ack.
local function token_due(token)
  return tonumber(string.match(token, '^%S+ %S+ (%S+)$') or string.match(token, '(%S+)$'))
end

-- Appends the payloads of the zset `key` (lowest score first; the lowest `limit` when given) and
-- their scores; returns how many.
-- (The bounds as text: a number argument costs Redis a float formatting.)
local function read_payloads_of(key, payloads, scores, limit)
  local items = redis.call('ZRANGE', key, '0', limit and string.format('%d', limit - 1) or '-1', 'WITHSCORES')
  for k = 1, #items, 2 do
    payloads[#payloads + 1] = items[k]
    scores[#scores + 1] = items[k + 1]
  end
  return #items / 2
end

-- The same for the payloads of `id` (its run's alone when `limit` is the run's count).
local function read_payloads(name, id, payloads, scores, limit)
  return read_payloads_of(okey(name, 'p:' .. id), payloads, scores, limit)
end

-- A capped run whose rest stays in p:ID behind it (`o:NAME:capped`). A table, not locals:
-- begin.lua's includes are near Lua's 200 locals.
local capped_run = {}

-- How many payloads the held run of `id` took when p:ID holds more (its rest), else nil; the
-- note is taken out (`forget`), as the run leaves the tick. One HGET, only where a caller may meet one.
function capped_run.take(name, id, forget)
  local key = okey(name, 'capped')
  local count = tonumber(redis.call('HGET', key, id))
  if count and forget then redis.call('HDEL', key, id) end
  return count
end

-- Payloads that arrived during the run join the id's own (an identical
-- payload keeps its lowest score); the waiting count grows by what is back:
-- the run's (`run`: its count, when p:ID holds a capped run's rest, which
-- was never taken off the count), else all of p:ID.
-- Returns the due time of the arrivals (or of a capped run's rest), or nil when none.
local function merge_back(name, id, run)
  local p, n, later = okey(name, 'p:' .. id), okey(name, 'n:' .. id), okey(name, 'later')
  local arrived_due = redis.call('ZSCORE', later, id)
  local arrived, collapsed = 0, 0
  if arrived_due then
    arrived = redis.call('ZCARD', n)
    if arrived > 0 then
      -- An arrival identical to a payload of a capped run's rest (both counted waiting) is one payload once merged.
      local own = run and redis.call('ZCARD', p)
      local merged = redis.call('ZUNIONSTORE', p, 2, p, n, 'AGGREGATE', 'MIN')
      if run then collapsed = own + arrived - merged end
      redis.call('DEL', n)
    end
    redis.call('ZREM', later, id)
  end
  redis.call('INCRBY', okey(name, 'payloads'), run and run - collapsed or (redis.call('ZCARD', p) - arrived))
  return tonumber(arrived_due)
end

-- Arrivals behind a finished run become the id's payloads; returns 1 if
-- the id is ready again. (In `later` with none: a capped run's rest, which went with its run.)
local function promote_arrivals(name, id, arrived_due)
  if not arrived_due then return 0 end
  redis.call('ZREM', okey(name, 'later'), id)
  if redis.call('EXISTS', okey(name, 'n:' .. id)) == 0 then return 0 end
  redis.call('RENAME', okey(name, 'n:' .. id), okey(name, 'p:' .. id))
  redis.call('ZADD', okey(name, 'ready'), arrived_due, id)
  return 1
end

-- An id whose run never finished (not started, interrupted, its tick dead)
-- goes back to ready with every payload, keeping its place: the earlier of
-- its own due time and that of the arrivals.
-- `counter`: the hash that counts this return ('resurrections',
-- 'interruptions' or 'doubts'), nil for none. `run`: as merge_back's.
local function requeue(name, id, due, counter, run)
  local arrived_due = merge_back(name, id, run)
  if arrived_due and arrived_due < due then due = arrived_due end
  redis.call('ZADD', okey(name, 'ready'), due, id)
  if counter then redis.call('HINCRBY', okey(name, counter), id, 1) end
end

-- The ordered part of a tick call's ARGV starts at `i`, after everything
-- else: n, then n ordered names this tick serves. A call that carries
-- none (a tick with no ordered jobs) ends before it: nil reads as 0.
-- A name with `maxPayloads` comes as "NAME CAP" (a name holds no space): its
-- cap goes in `names.caps` (lib/ordered/fetch-ids.lua); a name without one is
-- sent as before, so a tick of an older version and its scripts are unchanged.
-- Returns the names and the index after them.
local function ordered_names(i)
  local names = {}
  for k = 1, tonumber(ARGV[i]) or 0 do
    local name = ARGV[i + k]
    local space = string.find(name, ' ', 1, true)
    if space then
      names.caps = names.caps or {}
      names.caps[string.sub(name, 1, space - 1)] = tonumber(string.sub(name, space + 1))
      name = string.sub(name, 1, space - 1)
    end
    names[k] = name
  end
  return names, i + 1 + #names
end

-- The index just past lib/tick/fetch-jobs.lua's arguments that start at `i`.
local function fetch_args_end(i)
  local n = tonumber(ARGV[i + 1])
  return i + 3 + n + tonumber(ARGV[i + 2 + n])
end
