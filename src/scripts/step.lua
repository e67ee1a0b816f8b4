#!lua flags=allow-oom
-- step: settle finished jobs, extend the lease and fetch more, in one round
-- trip. A tick whose lease is gone may be resurrected at any moment, so it
-- acks but fetches nothing more (a job fetched into its lists now could be
-- orphaned).
-- KEYS: [1] P.."ticks"  [2] P.."tick:"..ID (the lease hash)
--       [3..5] only as a Sidekiq process: its heartbeat and work hashes
-- ARGV: [1] prefix  [2] tick id  [3] lease ms  [4] dead max size
--       [5] dead max age s  [6] call number  [7..] only as a Sidekiq
--       process, a beat (lib/sidekiq-process.lua); then ack entries
--       (lib/ack.lua), then fetch args (lib/fetch.lua)
-- Returns: {now ms, lease held (1/0), dead evictions, {queue, {jobs}, {resurrections}, ...},
--           {numbers of ack entries no longer listed (lib/ack.lua)}}
-- Replays: a numbered call (lib/replay.lua). The replay of the last call
-- answers its kept reply, so the jobs it fetched reach the tick and none is
-- acked twice; an older call's replay does nothing. Without the lease the
-- acks still run, but only on jobs still listed, which a replay no longer
-- finds: nothing is counted twice. The beat is numbered too: an older or
-- replayed one changes nothing.
-- allow-oom: acking frees memory; it must run when Redis is full.
-- @include lib/common.lua
-- @include lib/replay.lua
-- @include lib/ack.lua
-- @include lib/fetch.lua
-- @include lib/sidekiq-process.lua

local tick, lease, seq = ARGV[2], KEYS[2], tonumber(ARGV[6])
local now = now_ms()
local state, kept = call_state(lease, seq)
if state == 'replay' then
  kept[4] = with_jobs(tick, kept[4])
  return kept
end
if state == 'stale' then return { now, 0, 0, {} } end
local held = state == 'fresh'
local acks_at = 7
if #KEYS > 2 then acks_at = sidekiq_section_end(7) end
local next_arg, evicted, missed = ack(tick, acks_at, now, tonumber(ARGV[4]), tonumber(ARGV[5]))
if not held then return { now, 0, evicted, {}, missed } end
redis.call('PEXPIRE', lease, ARGV[3])
if #KEYS > 2 then sidekiq_beat(3, now, ARGV[3], 7) end
local batch, queues, picks = fetch_args(next_arg)
local fetched = fetch(tick, batch, queues, picks)
remember(lease, seq, { now, 1, evicted, without_jobs(fetched), missed })
return { now, 1, evicted, fetched, missed }
