-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- A Redis restart (or a failover to a replica) forgets the writes it had not
-- persisted or replicated: under `appendfsync everysec`, about the last second.
-- A claim made in that second (an ordered id, a concurrency slot, a unique
-- key, a workflow run) is forgotten while the tick that made it still runs its
-- handler; handed out again, the work would run twice at once. So for a while
-- after a restart no exclusive work is handed out (`restart.held`), and a tick
-- whose lease was stamped by the Redis before the restart (`restart.stale`) is
-- told its lease is lost, which aborts its handlers within one extend interval.
--
-- The Redis a key space lives on is named by INFO's run_id (new at every start
-- and on a promoted replica), kept in the persisted hash P.."boot":
--   lastsave  LASTSAVE when last checked (the start time until an RDB save)
--   run       run_id of that Redis
--   at        ms when the hold began: when a new run_id was first seen (or, for a
--             record the restart forgot, the server's start)
--   lease     the longest lease of the ticks begun in the last hour, lease_at when set
--   sure      the LASTSAVE a check ran after the second of: no Redis restarted within it since. A value,
--             not a flag: a check of a release before `sure` (a rolling deploy) rewrites `lastsave` alone,
--             and a flag left from the save before would vouch for a second nobody checked past. Written
--             to this Redis alone, not to its replicas or AOF: a replica that loaded its master's RDB in
--             the second the master saved it answers the same LASTSAVE, and once promoted must not find
--             the master's `sure` (a full sync's RDB may hold one, of a LASTSAVE before that sync's).
--   node      CLUSTER MYID of that Redis ('' outside a cluster)
--   moved     "OLD>NEW": the run_ids before and after the key space moved here whole (resharding);
--             a lease stamped OLD stays current while `run` is NEW
-- Resharding moves the key space to another master of a cluster with MIGRATE, which forgets nothing:
-- a new run_id there is no restart when the record names another node, this one was never promoted
-- (master_replid2 unset: not a failover) and that node is a connected master still (CLUSTER NODES: not
-- failed, not a replica). Then no hold begins and the leases stamped before it stay current. A restart
-- of the old node that no call saw before its slot moved is not seen (the hold would need that call).
-- Fast path: LASTSAVE equals `lastsave` and `sure`, same Redis (one LASTSAVE and one HMGET).
-- Otherwise INFO server (~50-100 µs) tells a restart from an RDB save.
-- A mark written with REPL_NONE would not do: an AOF rewrite or RDB save dumps
-- it, and the restart would look like none.
-- A record the restart forgot (the prefix's first claims were in the lost
-- second): the hold runs from the server's start, when the server loaded
-- anything at start (keys from an RDB, or an AOF it found); a server without
-- persistence forgot the work with its claims, and one on its first start had
-- none. A Redis that refuses LASTSAVE or INFO in scripts (a hosted one) turns
-- detection off: Upstash persists each write before answering.
-- At maxmemory (noeviction) its HSETs of a few bytes fail as every write does, and the call with them.
-- Concurrent ticks: a script runs alone on its node, so the first call on the new master records the move
-- (or the restart) and every later one, any tick's, finds it recorded.
-- Replays: a replay finds the record the first run wrote (fast path); writing it
-- again would write the same values (within the second LASTSAVE names it checks again
-- and writes nothing new; one after that second only marks the record `sure`).
-- @include lib/common/prefix-keys.lua

local restart = { FLOOR_MS = 30000, HOUR_MS = 3600000 }

function restart.info(section)
  local ok, info = pcall(redis.call, 'INFO', section)
  if not ok or type(info) ~= 'string' then return '' end
  return info
end

-- When the hold of a Redis whose record was forgotten begins: its start, if it
-- may have loaded work from disk (keys from an RDB, or an AOF it found at
-- start: aof_base_size is 0 only for one that began empty); else never (0), so
-- a Redis on its first start holds nothing.
function restart.start_of(server, now)
  local persistence = restart.info('persistence')
  local from_rdb = tonumber(string.match(persistence, 'rdb_last_load_keys_loaded:(%d+)') or 0) > 0
  local from_aof = tonumber(string.match(persistence, 'aof_base_size:(%d+)') or 0) > 0
  if not (from_rdb or from_aof) then return 0 end
  return now - (tonumber(string.match(server, 'uptime_in_seconds:(%d+)')) or 0) * 1000
end

-- Notes that a check ran past the second `lastsave` names, on this Redis alone (see `sure`). A Redis
-- that refuses redis.set_repl gets it replicated, as before `sure` was local.
function restart.mark_sure(key, lastsave)
  local local_only = pcall(redis.set_repl, redis.REPL_NONE)
  redis.call('HSET', key, 'sure', lastsave)
  if local_only then redis.set_repl(redis.REPL_ALL) end
end

-- This Redis' cluster node id, '' outside a cluster.
function restart.node()
  local ok, id = pcall(redis.call, 'CLUSTER', 'MYID')
  if ok and type(id) == 'string' then return id end
  return ''
end

-- Whether the key space came here whole from node `from` (see the header): resharding, not a restart.
function restart.moved_here(from, here)
  if not from or from == '' or here == '' or from == here then return false end
  if not string.find(restart.info('replication'), 'master_replid2:0+%s') then return false end
  local ok, nodes = pcall(redis.call, 'CLUSTER', 'NODES')
  if not ok or type(nodes) ~= 'string' then return false end
  for line in string.gmatch(nodes, '[^\n]+') do
    local id, flags, link = string.match(line, '^(%x+) %S+ (%S+) %S+ %S+ %S+ %S+ (%S+)')
    if id == from then return flags == 'master' and link == 'connected' end
  end
  return false
end

-- { run, moved, hold_until } for this call, checked once; run '' when detection is off.
-- leaseMs: the calling tick's lease (the longest of the last hour is kept), or nil.
function restart.check(now, leaseMs)
  if restart.memo then return restart.memo end
  restart.memo = { run = '', hold_until = 0 }
  local key = P .. 'boot'
  local ok, lastsave = pcall(redis.call, 'LASTSAVE')
  if not ok then return restart.memo end
  local r = redis.call('HMGET', key, 'lastsave', 'run', 'at', 'lease', 'lease_at', 'sure', 'node', 'moved')
  local run, at, kept, kept_at = r[2], tonumber(r[3]) or 0, tonumber(r[4]), tonumber(r[5]) or 0
  local moved = r[8]
  -- LASTSAVE counts seconds: a Redis restarted within the second it names (its start, or its last save)
  -- answers the same one, so the fast path holds only once a check ran after that second (`sure`).
  if r[1] ~= tostring(lastsave) or r[6] ~= r[1] then
    local server = restart.info('server')
    local now_run = string.match(server, 'run_id:(%x+)')
    -- A server whose INFO names no run_id: detection off, by the fast path from the next call on.
    if not now_run then
      redis.call('HSET', key, 'lastsave', lastsave)
      restart.mark_sure(key, lastsave)
      return restart.memo
    end
    if now_run ~= run then
      local here = restart.node()
      if run and restart.moved_here(r[7], here) then
        moved = run .. '>' .. now_run
        redis.call('HSET', key, 'run', now_run, 'node', here, 'moved', moved)
      else
        at = run and now or restart.start_of(server, now)
        redis.call('HSET', key, 'run', now_run, 'at', at, 'node', here)
      end
      run = now_run
    elseif not r[7] then
      redis.call('HSET', key, 'node', restart.node()) -- a record of a release before `node`
    end
    if r[1] ~= tostring(lastsave) then redis.call('HSET', key, 'lastsave', lastsave) end
    if now >= (lastsave + 1) * 1000 then
      restart.mark_sure(key, lastsave)
    end
  end
  if not run then return restart.memo end
  local mine, lease = tonumber(leaseMs), kept or restart.FLOOR_MS
  if mine and (not kept or mine > kept or now - kept_at > restart.HOUR_MS) then
    lease = mine
    redis.call('HSET', key, 'lease', mine, 'lease_at', now)
  elseif mine == kept and now - kept_at > restart.HOUR_MS / 2 then
    redis.call('HSET', key, 'lease_at', now)
  end
  restart.memo = { run = run, moved = moved, hold_until = at + lease }
  return restart.memo
end

-- Whether no exclusive work may be handed out now: a tick alive before the
-- restart may still run work whose claim the restart forgot.
function restart.held(now)
  return now < restart.check(now).hold_until
end

-- The run_id to stamp a new lease with ('' when detection is off).
function restart.stamp(now, leaseMs)
  return restart.check(now, leaseMs).run
end

-- Whether a lease stamped `stamped` (its `boot` field, read by the caller) was taken on a Redis before the
-- last restart.
function restart.stale_stamp(stamped, now)
  if not stamped or stamped == '' then return false end
  local c = restart.check(now)
  return c.run ~= '' and stamped ~= c.run and c.moved ~= stamped .. '>' .. c.run
end

-- Whether `lease` (a lease hash) was taken on a Redis before the last restart.
function restart.stale(lease, now)
  return restart.stale_stamp(redis.call('HGET', lease, 'boot'), now)
end
