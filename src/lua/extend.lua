#!lua flags=allow-oom
-- extend: keep a tick's lease alive while its handlers run; as a Sidekiq
-- process, beat too (the jobs running now).
-- KEYS: lease process?keys(heartbeat work workers)
-- ARGV: prefix tickId leaseMs beat?keys(number running[](tid work)) progress?[](jid value)
-- Returns: flag
-- lease: P.."tick:"..ID (the lease hash); process and beat: only as a Sidekiq
-- process (lib/sidekiq/register-process.lua). progress: running jobs' progress values
-- (JSON), written while the lease is held (lib/results/keep-results.lua).
-- Returns 1 if the lease was extended, 0 if it was already gone.
-- Replays: PEXPIRE never creates a key, so a replay can only extend a
-- lease that still exists, never revive a lost one; the beat is numbered,
-- so a replayed or overtaken one changes nothing but TTLs, and it never
-- re-creates a heartbeat that is gone. A replayed progress value is written
-- again as it was: the job's last value, or one a newer call then replaces.
-- @include lib/common/prefix-keys.lua
-- @include lib/sidekiq/register-process.lua
-- @include lib/results/keep-results.lua

local extended = redis.call('PEXPIRE', KEYS[1], ARGV[3])
if extended == 1 and #KEYS > 1 then sidekiq_beat(2, now_ms(), ARGV[3], 4) end
local at = 4
if #KEYS > 1 then at = sidekiq_section_end(4) end
if extended == 1 and ARGV[at] then
  for k = 1, tonumber(ARGV[at]) do note_progress(ARGV[at + 2 * k - 1], ARGV[at + 2 * k]) end
end
return extended
