#!lua flags=allow-oom
-- housekeep: one more bounded resurrect and delayed pass, for a tick whose
-- begin reported that more was left and whose time budget allows it.
-- KEYS: [1] P.."ticks"  [2] P.."tick:"..ID (the lease hash)
-- ARGV: [1] prefix  [2] tick id  [3] call number  [4] resurrect limit
--       [5] resurrector lock ms  [6] registry scan limit  [7] schedule limit
-- Returns: {now ms, resurrected, scheduled, more resurrect, more schedule, lease held}
-- Replays: a numbered call (lib/tick/replay-call.lua); the passes themselves only
-- move what they find, so even an unnumbered rerun moves nothing twice.
-- @include lib/common/prefix-keys.lua
-- @include lib/common/edit-job-text.lua
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
-- @include lib/ordered/state.lua
-- @include lib/ordered/resurrect-ids.lua
-- @include lib/tick/resurrect-dead-ticks.lua
-- @include lib/delayed/promote-due.lua

local lease, seq = KEYS[2], tonumber(ARGV[3])
local now = now_ms()
local state, kept = call_state(lease, seq)
if state == 'replay' then return kept end
if state ~= 'fresh' then return { now, 0, 0, 0, 0, 0 } end
local resurrected, more_resurrect = resurrect(ARGV[2], tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6]))
local promoted, more_delayed = promote_due(now / 1000, tonumber(ARGV[7]))
return remember(lease, seq, { now, resurrected, promoted, more_resurrect, more_delayed, 1 })
