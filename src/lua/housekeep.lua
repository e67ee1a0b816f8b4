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
-- @include lib/common/edit-job-text.lua
-- @include lib/debounce/close-window.lua
-- @include lib/order/read-order.lua
-- @include lib/order/queue-job.lua
-- @include lib/tick/replay-call.lua
-- @include lib/flow/read.lua
-- @include lib/flow/sent.lua
-- @include lib/flow/slots.lua
-- @include lib/flow/settle.lua
-- @include lib/flow/chunk.lua
-- @include lib/flow/decide.lua
-- @include lib/flow/admit.lua
-- @include lib/flow/claims.lua
-- @include lib/flow/flow.lua
-- @include lib/admin/match-jobs.lua
-- @include lib/cancel/read-cancel-marks.lua
-- @include lib/cancel/record-cancelled.lua
-- @include lib/ordered/state.lua
-- @include lib/ordered/cancel-ids.lua
-- @include lib/ordered/resurrect-ids.lua
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
