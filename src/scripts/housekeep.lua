-- housekeep: one more bounded resurrect and schedule pass, for a tick whose
-- begin reported that more was left and whose time budget allows it.
-- KEYS: [1] P.."ticks"  [2] P.."tick:"..ID (the lease)
-- ARGV: [1] prefix  [2] tick id  [3] resurrect limit  [4] resurrector lock ms
--       [5] registry scan limit  [6] schedule limit
-- Returns: {now ms, resurrected, scheduled, more resurrect, more schedule}
-- @include lib/common.lua
-- @include lib/resurrect.lua
-- @include lib/schedule.lua

local now = now_ms()
local resurrected, more_resurrect = resurrect(ARGV[2], tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5]))
local scheduled, more_schedule = schedule(now / 1000, tonumber(ARGV[6]))
return { now, resurrected, scheduled, more_resurrect, more_schedule }
