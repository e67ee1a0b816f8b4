#!lua flags=allow-oom
-- begin: start a tick in one round trip: take the lease, register, run the
-- bounded resurrect and delayed passes, fetch the first batch, and note
-- the time in the heartbeat (lib/tick/record-heartbeat.lua).
-- KEYS: ticks lease process?keys(heartbeat work workers)
-- ARGV: prefix tickId leaseMs deadMaxSize deadMaxAgeSec registration housekeep(resurrectLimit
--   lockMs scanLimit scheduleLimit) askPolicy recurring(digest dueLimit shiftMs) workflows(claim
--   retentionMs) starts[](id name input version) info?keys
--   fetch(batch queues[] picks[]) ordered?(names[] succeeded[](name ids[]+(id fence)) others[](code
--   name id fence extra)&metrics?m(entries[]+(runs ms startMs) retentionSec perItem[](ms startMs)))
-- Returns: (nowMs resurrected scheduled moreResurrect moreSchedule fetched[queue jobs[]+
--   counts[resurrections interruptions suspect doubts] place] leaseHeld policy due?(inSync due[name slot
--   last] more) ordered?[](name first ids[]+ payloads[]+ scores[]+ counts[] failures[] resurrections[]
--   suspects[] interruptions[] doubts[]) flow?(capped fence parked) expired?[] workflows?(claimed[](id
--   name input fence steps[] keyForm version) more started?(full holders[])) testClock? drained?)
-- ticks: P.."ticks"; lease: P.."tick:"..ID (the lease hash); process: only as
-- a Sidekiq process, its heartbeat and work hashes (lib/sidekiq/register-process.lua).
-- registration: "<started ms> <lease ms> <queue> …"; housekeep: lib/tick/resurrect-dead-ticks.lua
-- and lib/delayed/promote-due.lua; askPolicy: 1 to report the eviction policy ('' where INFO is refused);
-- recurring: lib/recurring/find-due.lua; info: the Sidekiq process's `info` JSON;
-- fetch: lib/tick/fetch-jobs.lua; ordered: lib/ordered/state.lua (absent: no ordered names).
-- workflows: claim -1 for an app that declares no workflow (nothing of workflows is
-- touched, the reply has no workflows part); else the tick's first workflow work, as
-- workflow_tick.lua does it, so a tick's first claim of runs costs no call of its own:
-- runs past retentionMs are removed and up to `claim` due runs claimed
-- (lib/workflows/claim-runs.lua; claim 0 only says whether runs are due).
-- starts: runs to create first, all or none (lib/workflows/start-runs.lua, as
-- workflow_start_bulk.lua), so tq.workflows.startAndWait's tick starts its run and claims
-- it in this one call; none for every other tick. Sent only with claim >= 0.
-- fetched: lib/tick/fetch-jobs.lua's groups; due: lib/recurring/find-due.lua (absent
-- when the tick was not begun); ordered: lib/ordered/fetch-ids.lua's groups, only for a
-- tick that serves ordered names (empty when only the flow part follows); flow: when
-- the fetch met flow jobs (lib/tick/fetch-jobs.lua); expired: the jobs the fetch found
-- expired and recorded (lib/expiry/expire-fetched.lua), only when there are any;
-- workflows: the runs claimed (id, name, input JSON, fence, step records, key form) and
-- whether more are due, only when claim >= 0 (the parts before it are then {} when absent);
-- with starts, `started`: full 1 when Redis was full (nothing created: the caller refuses the
-- start with REDIS_FULL), else the name each id holds, in order (another name than the
-- start's: a conflict, nothing created).
-- testClock: 1 when the prefix holds a virtual clock (tickq/testing), else absent (0 when
-- drained follows). drained: 1 when the fetch filled its batch yet left nothing due behind
-- (lib/ordered/fetch-ids.lua's fetch_mixed): the tick runs what it has and acks in finish,
-- with no step that would fetch nothing; 2 when it took everything due but capped ids it took
-- left payloads behind their runs: the tick runs what it has, then acks it in a step that takes
-- those ids again; 3 when such capped ids left payloads behind though more is due: the tick steps
-- as for a full batch, and once every job it holds settled, acks them in a step that takes them
-- again (a later fetch that leaves nothing behind does not say their rest is gone); else absent.
-- Replays: begin is call 1 of the tick (lib/tick/replay-call.lua). A replay while the
-- lease lives answers the first run's reply; once the lease is gone the
-- tick is dead (its fetched jobs are the resurrector's) and begin answers
-- "lease not held": lib/tick/begun-ids.lua remembers its id for an hour
-- (or the next ~50,000 ticks, whichever is shorter, in at most 512 KiB).
-- A resend carries the same ARGV as the first run, so the order of the
-- parts (recurring before fetch, so every part has its fixed place or
-- follows a count) changes nothing for a replay. The runs claimed are in the kept
-- reply (by id and fence; their records are read again, so the lease holds no step
-- result), so a replay hands the same runs with the same fences and claims none again.
-- The starts' answer is in the kept reply too, and so is `drained`: a replay creates nothing (and starts are
-- idempotent by id, so even a rerun would create each run once).
-- After a Redis restart or failover (lib/tick/restart-hold.lua) the lease is stamped with the
-- Redis' run_id and, for a lease, no ordered id, flow slot or unique key, or workflow run is
-- handed out; the restart record is written once (run twice: its second run takes the fast path).
-- maxmemory: runs (allow-oom): a tick must start, or the queues that free memory could never drain.
-- What it adds is bounded: one tick's lease (with its fetch's counts, two small fields a queue:
-- lib/tick/fetch-jobs.lua) and registration (and its mark in `oticks`), the restart record (one small hash), the begin guard
-- (lib/tick/begun-ids.lua, at most ~0.8 MB), jobs it moves (no growth); it claims no workflow run
-- while Redis is full (lib/workflows/claim-runs.lua). Starts are not allow-oom's: while Redis
-- is full begin creates no run and says so (started.full), as workflow_start refuses one.
-- @include lib/common/prefix-keys.lua
-- @include lib/tick/replay-call.lua
-- @include lib/tick/begun-ids.lua
-- @include lib/tick/restart-hold.lua
-- @include lib/ordered/state.lua
-- @include lib/tick/resurrect-dead-ticks.lua
-- @include lib/delayed/promote-due.lua
-- @include lib/expiry/expire-fetched.lua
-- @include lib/tick/fetch-jobs.lua
-- @include lib/ordered/fetch-ids.lua
-- @include lib/recurring/find-due.lua
-- @include lib/sidekiq/register-process.lua
-- @include lib/tick/record-heartbeat.lua
-- @include lib/workflows/carry-steps.lua
-- @include lib/workflows/claim-runs.lua
-- @include lib/workflows/start-runs.lua
-- @include lib/common/memory-state.lua

local tickId = ARGV[2]
local leaseMs = ARGV[3]
local deadMaxSize = tonumber(ARGV[4])
local deadMaxAgeSec = tonumber(ARGV[5])
local registration = ARGV[6]
local resurrectLimit = tonumber(ARGV[7])
local lockMs = ARGV[8]
local scanLimit = tonumber(ARGV[9])
local scheduleLimit = tonumber(ARGV[10])
local askPolicy = ARGV[11] == '1'
local digest = ARGV[12]
local dueLimit = tonumber(ARGV[13])
local shiftMs = tonumber(ARGV[14])
local claim = tonumber(ARGV[15])
local retentionMs = tonumber(ARGV[16])
local startsAt = 17
-- The starts are a count and 4 values each: info and fetch come after them.
local info = #KEYS > 2 and ARGV[startsAt + 1 + 4 * ARGV[startsAt]] or nil
local fetchAt = startsAt + 1 + 4 * ARGV[startsAt] + (info and 1 or 0)
local orderedAt = fetch_args_end(fetchAt)

local lease = KEYS[2]
local now = now_ms()
-- In a block: a script's main function holds at most 200 locals, and begin's libraries take most.
do
  local state, kept = call_state(lease, 1)
  if state == 'replay' then
    kept[6] = with_jobs(tickId, kept[6])
    -- {} when a later field follows and no workflow is declared.
    if kept[13] and kept[13][1] then kept[13][1] = wf_carry.again(kept[13][1]) end
    return ordered_reply.rehydrate(kept, 10)
  end
  -- A tick begins once: its id is noted (lib/tick/begun-ids.lua), so a late
  -- replay of begin, after the lease and the registration are gone, cannot
  -- bring the tick back to life (it would fetch jobs nobody runs, and its
  -- other late calls would count as fresh).
  -- The sorted set `begun` of older versions (a rolling deploy) is trimmed as they trim it, so it empties.
  redis.call('ZREMRANGEBYSCORE', P .. 'begun', '-inf', now - BEGUN_MS)
  if state == 'stale' or redis.call('HEXISTS', KEYS[1], tickId) == 1 or not note_begun(tickId) then
    return { now, 0, 0, 0, 0, {}, 0, '' }
  end
end

local policy = ''
if askPolicy then
  -- A Redis that refuses INFO in scripts (an ACL, a managed service) reads as no policy, as memory_info does.
  -- A plain find, then the value anchored after it: an unanchored pattern tries each of INFO's positions.
  local info_text = memory_info()
  local at = string.find(info_text, 'maxmemory_policy:', 1, true)
  policy = at and string.match(info_text, '^%S+', at + 17) or ''
end
-- The lease's fields in one HSET (no local for the stamp: begin's main function is near Lua's 200).
if restart.stamp(now, leaseMs) ~= '' then
  redis.call('HSET', lease, 'seq', 0, 'boot', restart.stamp(now))
else
  redis.call('HSET', lease, 'seq', 0)
end
redis.call('PEXPIRE', lease, leaseMs)
redis.call('HSET', KEYS[1], tickId, registration)
heartbeat(now, registration)
local resurrected, more_resurrect = resurrect(tickId, resurrectLimit, lockMs, scanLimit)
local promoted, more_delayed = promote_due(now / 1000, scheduleLimit)
local due = recurring_due(now + shiftMs, digest, dueLimit)
if info then sidekiq_register(3, now, leaseMs, info) end
keep_expired_like_dead(deadMaxSize, deadMaxAgeSec)
local names = ordered_names(orderedAt)
-- This tick keeps the `held` index of the ids it fetches (lib/ordered/state.lua).
if #names > 0 then redis.call('SADD', P .. 'oticks', tickId) end
-- In a block, as above.
local fetched, ordered, flowed, drained
do
  local batch, queues, picks = fetch_args(fetchAt)
  local took_all, behind
  fetched, ordered, flowed, took_all, behind = fetch_mixed(tickId, batch, queues, picks, names, now)
  if took_all then
    local count = 0
    for g = 2, #fetched, 4 do count = count + #fetched[g] end
    for _, group in ipairs(ordered) do count = count + #group[3] end
    if behind then drained = 2 elseif count >= batch then drained = 1 end
  elseif behind then
    drained = 3
  end
end
local kept_reply = { now, resurrected, promoted, more_resurrect, more_delayed, without_jobs(fetched), 1, policy, due }
local reply = { now, resurrected, promoted, more_resurrect, more_delayed, fetched, 1, policy, due }
-- Ordered groups are part of the reply only for a tick that serves ordered names.
if #names > 0 then kept_reply[10], reply[10] = ordered_reply.slim(ordered) end
if flowed then
  kept_reply[10], reply[10] = kept_reply[10] or {}, reply[10] or {}
  kept_reply[11], reply[11] = flowed, flowed
end
if #expired_now > 0 then
  kept_reply[10], reply[10] = kept_reply[10] or {}, reply[10] or {}
  kept_reply[11], reply[11] = kept_reply[11] or {}, reply[11] or {}
  kept_reply[12], reply[12] = expired_now, expired_now
end
if claim >= 0 then
  wf_expire(now - retentionMs)
  -- Created before the claim, so the claim can hand them to this tick at once.
  local started
  if tonumber(ARGV[startsAt]) > 0 then
    if redis_full() then started = { 1, {} } else started = { 0, wf_start_runs(startsAt, now) } end
  end
  local claimed, more = wf_claim(tickId, claim, now)
  for k = 10, 12 do kept_reply[k], reply[k] = kept_reply[k] or {}, reply[k] or {} end
  kept_reply[13], reply[13] = { wf_carry.kept(claimed), more, started }, { claimed, more, started }
end
-- A test prefix's mark (its virtual clock, lib/common/prefix-keys.lua) rides on this
-- reply, so a production tickq refuses the prefix at no extra round trip.
if redis.call('EXISTS', P .. 'testclock') == 1 then
  for k = 9, 13 do kept_reply[k], reply[k] = kept_reply[k] or {}, reply[k] or {} end
  kept_reply[14], reply[14] = 1, 1
end
if drained then
  for k = 9, 13 do kept_reply[k], reply[k] = kept_reply[k] or {}, reply[k] or {} end
  kept_reply[14], reply[14] = kept_reply[14] or 0, reply[14] or 0
  kept_reply[15], reply[15] = drained, drained
end
remember(lease, 1, kept_reply)
return reply
