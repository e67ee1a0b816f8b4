-- begin: start a tick in one round trip: take the lease, register, run the
-- bounded resurrect and schedule passes, fetch the first batch.
-- KEYS: [1] P.."ticks"  [2] P.."tick:"..ID (the lease)
-- ARGV: [1] prefix  [2] tick id  [3] lease ms  [4] dead max size
--       [5] dead max age s  [6] registration JSON {queues, started, lease}
--       [7] resurrect limit  [8] resurrector lock ms  [9] registry scan limit
--       [10] schedule limit  [11..] fetch args (see lib/fetch.lua)
-- Returns: {now ms, resurrected, scheduled, more resurrect, more schedule,
--           {queue, job, resurrections, ...}}
-- @include lib/common.lua
-- @include lib/resurrect.lua
-- @include lib/schedule.lua
-- @include lib/fetch.lua

local tick = ARGV[2]
local now = now_ms()
redis.call('SET', KEYS[2], now, 'PX', ARGV[3])
redis.call('HSET', KEYS[1], tick, ARGV[6])
local resurrected, more_resurrect = resurrect(tick, tonumber(ARGV[7]), ARGV[8], tonumber(ARGV[9]))
local scheduled, more_schedule = schedule(now / 1000, tonumber(ARGV[10]))
local batch, queues, picks = fetch_args(11)
return { now, resurrected, scheduled, more_resurrect, more_schedule, fetch(tick, batch, queues, picks) }
