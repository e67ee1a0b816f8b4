#!lua flags=allow-oom
-- finish: settle the last jobs (unstarted ones go back to the head of their
-- queues), release the resurrector lock if this tick holds it, and remove
-- the tick's registration once its lists are empty. A job still listed (a
-- handler that ignored the abort) keeps the registration, and the lease is
-- left to expire so a later tick resurrects it.
-- As a Sidekiq process, the tick leaves `processes` with its lists empty;
-- otherwise its heartbeat shows the jobs still running until the lease
-- expires.
-- KEYS: [1] P.."ticks"  [2] P.."tick:"..ID (the lease hash)
--       [3..5] only as a Sidekiq process: its heartbeat and work hashes
-- ARGV: [1] prefix  [2] tick id  [3] lease ms  [4] dead max size
--       [5] dead max age s  [6] call number  [7..] only as a Sidekiq
--       process, a beat (lib/sidekiq/register-process.lua); then ack entries
--       (lib/tick/ack-jobs.lua), then n and the n queues this tick served, then
--       the ordered names it served and its ordered acks
--       (lib/ordered/state.lua, lib/ordered/ack-ids.lua; absent: none)
-- Returns: {now ms, jobs and ordered ids left in its lists, dead evictions,
--           ordered ids made ready by these acks (0 for a tick that serves
--           no ordered names), {numbers of ack entries no longer listed (lib/tick/ack-jobs.lua)},
--           parked flow jobs these acks sent back to their queues}
-- Replays: a numbered call (lib/tick/replay-call.lua). The lease hash outlives finish
-- until its TTL runs out, holding the reply, so a replay answers it; after
-- that, a replay finds none of its jobs listed and moves nothing. The
-- lease is never re-created here, nor the Sidekiq heartbeat (it beats only
-- while the lease lives; leaving twice deletes nothing more).
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
-- @include lib/results/keep-results.lua
-- @include lib/tick/ack-jobs.lua
-- @include lib/ordered/state.lua
-- @include lib/ordered/ack-ids.lua
-- @include lib/sidekiq/register-process.lua

local tick, lease, seq = ARGV[2], KEYS[2], tonumber(ARGV[6])
local now = now_ms()
local state, kept = call_state(lease, seq)
if state == 'replay' then return kept end
if state == 'stale' then return { now, 0, 0 } end
local acks_at = 7
if #KEYS > 2 then acks_at = sidekiq_section_end(7) end
local i, evicted, missed = ack(tick, acks_at, now, tonumber(ARGV[4]), tonumber(ARGV[5]), state == 'fresh')
local names, ordered_at = ordered_names(i + 1 + tonumber(ARGV[i]))
local ready_again, ordered_evicted = ordered_ack(tick, ordered_at, now, tonumber(ARGV[4]), tonumber(ARGV[5]))
if redis.call('GET', P .. 'resurrector') == tick then redis.call('DEL', P .. 'resurrector') end
local left = 0
for k = 1, tonumber(ARGV[i]) do
  left = left + redis.call('LLEN', inproc_key(tick, ARGV[i + k]))
end
if #names > 0 then left = left + redis.call('HLEN', oinproc_key(tick)) end
-- A solo job still listed was abandoned running: its record stays for the resurrector.
if left == 0 then
  redis.call('HDEL', KEYS[1], tick)
  redis.call('HDEL', P .. 'solo', tick)
end
if #KEYS > 2 then
  if left == 0 then sidekiq_leave(3) elseif state == 'fresh' then sidekiq_beat(3, now, ARGV[3], 7) end
end
local reply = { now, left, evicted + ordered_evicted, 0, missed, flow_lib and flow_lib.sent_on or 0 }
if #names > 0 then reply[4] = ready_again end
if state == 'fresh' then remember(lease, seq, reply) end
return reply
