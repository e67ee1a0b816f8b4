#!lua flags=allow-oom
-- begin: start a tick in one round trip: take the lease, register, run the
-- bounded resurrect and schedule passes, fetch the first batch, and note
-- the time in the heartbeat (lib/heartbeat.lua).
-- KEYS: [1] P.."ticks"  [2] P.."tick:"..ID (the lease hash)
-- ARGV: [1] prefix  [2] tick id  [3] lease ms  [4] dead max size
--       [5] dead max age s  [6] registration "<started ms> <lease ms> <queue> …"
--       [7] resurrect limit  [8] resurrector lock ms  [9] registry scan limit
--       [10] schedule limit  [11] 1 to report the eviction policy
--       [12..] fetch args (see lib/fetch.lua)
-- Returns: {now ms, resurrected, scheduled, more resurrect, more schedule,
--           {queue, {jobs}, {resurrections}, ...}, lease held (1/0), policy}
-- Replays: begin is call 1 of the tick (lib/replay.lua). A replay while the
-- lease lives answers the first run's reply; once the lease is gone but the
-- tick is still registered, the tick is treated as dead (its fetched jobs
-- are the resurrector's) and begin answers "lease not held".
-- allow-oom: at maxmemory with noeviction a tick must still start, or the
-- queue that would free memory could never drain.
-- @include lib/common.lua
-- @include lib/job-text.lua
-- @include lib/replay.lua
-- @include lib/resurrect.lua
-- @include lib/schedule.lua
-- @include lib/fetch.lua
-- @include lib/heartbeat.lua

local tick, lease = ARGV[2], KEYS[2]
local now = now_ms()
local state, kept = call_state(lease, 1)
if state == 'replay' then return kept end
if state == 'stale' or redis.call('HEXISTS', KEYS[1], tick) == 1 then
  return { now, 0, 0, 0, 0, {}, 0, '' }
end

local policy = ''
if ARGV[11] == '1' then
  policy = string.match(redis.call('INFO', 'memory'), 'maxmemory_policy:(%S+)') or ''
end
redis.call('HSET', lease, 'seq', 0)
redis.call('PEXPIRE', lease, ARGV[3])
redis.call('HSET', KEYS[1], tick, ARGV[6])
heartbeat(now, ARGV[6])
local resurrected, more_resurrect = resurrect(tick, tonumber(ARGV[7]), ARGV[8], tonumber(ARGV[9]))
local scheduled, more_schedule = schedule(now / 1000, tonumber(ARGV[10]))
local batch, queues, picks = fetch_args(12)
return remember(lease, 1, { now, resurrected, scheduled, more_resurrect, more_schedule, fetch(tick, batch, queues, picks), 1, policy })
