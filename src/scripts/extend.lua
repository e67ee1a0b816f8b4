#!lua flags=allow-oom
-- extend: keep a tick's lease alive while its handlers run.
-- KEYS: [1] P.."tick:"..ID (the lease hash)
-- ARGV: [1] prefix  [2] tick id  [3] lease ms
-- Returns: 1 if the lease was extended, 0 if it was already gone.
-- Replays: PEXPIRE never creates a key, so a replay can only extend a
-- lease that still exists, never revive a lost one.
return redis.call('PEXPIRE', KEYS[1], ARGV[3])
