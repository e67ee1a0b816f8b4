-- step: settle the last batch, extend the lease and fetch the next batch,
-- in one round trip. A tick whose lease is gone may be resurrected at any
-- moment, so it acks but fetches nothing more (a job fetched into its lists
-- now could be orphaned).
-- KEYS: [1] P.."ticks"  [2] P.."tick:"..ID (the lease)
-- ARGV: [1] prefix  [2] tick id  [3] lease ms  [4] dead max size
--       [5] dead max age s  [6..] ack entries (lib/ack.lua), then fetch
--       args (lib/fetch.lua)
-- Returns: {now ms, lease held (1/0), dead evictions, {queue, job, resurrections, ...}}
-- @include lib/common.lua
-- @include lib/ack.lua
-- @include lib/fetch.lua

local tick = ARGV[2]
local now = now_ms()
local next_arg, evicted = ack(tick, 6, now, tonumber(ARGV[4]), tonumber(ARGV[5]))
if redis.call('PEXPIRE', KEYS[2], ARGV[3]) == 0 then
  return { now, 0, evicted, {} }
end
local batch, queues, picks = fetch_args(next_arg)
return { now, 1, evicted, fetch(tick, batch, queues, picks) }
