#!lua flags=allow-oom
-- extend: keep a tick's lease alive while its handlers run, with the tick's
-- load; as a Sidekiq process, beat too (the jobs running now); learn of the
-- tick's cancelled jobs.
-- KEYS: lease process?keys(heartbeat work workers)
-- ARGV: prefix tickId leaseMs load beat?keys(number running[](tid work)) progress?[](jid value) heard?[]
-- Returns: (extended cancels[])
-- lease: P.."tick:"..ID (the lease hash); process and beat: only as a Sidekiq
-- process (lib/sidekiq/register-process.lua). progress: running jobs' progress values
-- (JSON), written while the lease is held (lib/results/keep-results.lua).
-- load: "running waiting" (handlers running, jobs fetched not started), kept
-- in the lease hash as a step keeps it (lib/tick/run-solo.lua); '' leaves it.
-- heard: jids of cancelled jobs the tick learned of (it aborted them or will
-- never start them), marked heard (lib/cancel/read-cancel-marks.lua); sent with
-- progress before it (empty when there is none).
-- extended: 1 if the lease was extended, 0 if it was already gone; cancels:
-- the tick's jobs marked cancelled it has not said it heard of.
-- Replays: PEXPIRE never creates a key, so a replay can only extend a
-- lease that still exists, never revive a lost one; the beat is numbered,
-- so a replayed or overtaken one changes nothing but TTLs, and it never
-- re-creates a heartbeat that is gone. A replayed progress value is written
-- again as it was: the job's last value, or one a newer call then replaces.
-- A replayed load may put back one a moment older, until the tick's next
-- call: a figure stats() shows, never one tickq decides by.
-- A replayed heard list marks heard again what is already heard, and never
-- re-creates a mark its job's ack removed.
-- A lease stamped by the Redis before a restart (lib/tick/restart-hold.lua) is not
-- extended and answers 0, as a lost one, however often it is sent: its tick aborts its handlers.
-- maxmemory: runs (allow-oom): keeps a live tick's lease; it rewrites the lease hash's fields and
-- adds nothing (the restart record: one small hash, written once a restart).
-- @include lib/common/prefix-keys.lua
-- @include lib/sidekiq/register-process.lua
-- @include lib/cancel/read-cancel-marks.lua
-- @include lib/results/keep-results.lua
-- @include lib/tick/restart-hold.lua

local tickId = ARGV[2]
local leaseMs = ARGV[3]
local load = ARGV[4]
local beatAt = #KEYS > 1 and 5 or nil
local progressAt = beatAt and sidekiq_section_end(beatAt) or 5
local heardAt = ARGV[progressAt] and progressAt + 1 + 2 * tonumber(ARGV[progressAt]) or nil

-- A lease taken on the Redis before a restart is lost: the restart may have forgotten its claims.
if restart.stale(KEYS[1], now_ms()) then return { 0, {} } end
local extended = redis.call('PEXPIRE', KEYS[1], leaseMs)
if extended == 1 and load ~= '' then redis.call('HSET', KEYS[1], 'load', load) end
if extended == 1 and beatAt then sidekiq_beat(2, now_ms(), leaseMs, beatAt) end
if extended == 1 and ARGV[progressAt] then
  local at = progressAt
  for k = 1, tonumber(ARGV[at]) do note_progress(ARGV[at + 2 * k - 1], ARGV[at + 2 * k]) end
  if ARGV[heardAt] then
    local heard = {}
    for k = 1, tonumber(ARGV[heardAt]) do heard[k] = ARGV[heardAt + k] end
    note_heard(tickId, heard)
  end
end
if extended == 0 then return { 0, {} } end
return { 1, unheard_cancels(cancel_marks(tickId)) }
