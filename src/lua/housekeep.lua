#!lua flags=allow-oom
-- housekeep: one more bounded resurrect and delayed pass, for a tick whose
-- begin reported that more was left and whose time budget allows it.
-- KEYS: ticks lease
-- ARGV: prefix tickId call housekeep(resurrectLimit lockMs scanLimit scheduleLimit)
-- Returns: (nowMs resurrected scheduled moreResurrect moreSchedule leaseHeld)
-- call: the call number; housekeep: lib/tick/resurrect-dead-ticks.lua and
-- lib/delayed/promote-due.lua.
-- Replays: a numbered call (lib/tick/replay-call.lua); the passes themselves only
-- move what they find, so even an unnumbered rerun moves nothing twice.
-- maxmemory: runs (allow-oom): it moves jobs (due ones to their queue, a dead tick's back to
-- theirs) and adds nothing but a resurrection count per job moved from a dead tick.
-- @include lib/common/prefix-keys.lua
-- @include lib/tick/replay-call.lua
-- @include lib/tick/resurrect-dead-ticks.lua
-- @include lib/delayed/promote-due.lua

local tickId = ARGV[2]
local call = tonumber(ARGV[3])
local resurrectLimit = tonumber(ARGV[4])
local lockMs = ARGV[5]
local scanLimit = tonumber(ARGV[6])
local scheduleLimit = tonumber(ARGV[7])

local lease, seq = KEYS[2], call
local now = now_ms()
local state, kept = call_state(lease, seq)
if state == 'replay' then return kept end
if state ~= 'fresh' then return { now, 0, 0, 0, 0, 0 } end
local resurrected, more_resurrect = resurrect(tickId, resurrectLimit, lockMs, scanLimit)
local promoted, more_delayed = promote_due(now / 1000, scheduleLimit)
return remember(lease, seq, { now, resurrected, promoted, more_resurrect, more_delayed, 1 })
