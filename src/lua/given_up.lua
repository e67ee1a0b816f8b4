#!lua flags=allow-oom
-- given_up: whether each step a tick gave up on (no answer, to its resend either:
-- src/tick/given-up.ts) ran at Redis, told before the tick's finish. This call's
-- number is above theirs, so from now on none of them can run: a step is stale
-- below the tick's last call of no lane (lib/tick/replay-call.lua). A step that
-- never ran by now never will, and finish acks what it would have (over HTTP a
-- request held in transit, or dropped); one that ran has its number in its
-- lane's field (`seqa`, `seqb`, `seqc`, `seqd`; `seq` for a step of no lane),
-- and finish leaves its acks alone: none is acked twice (a second ack of a text
-- takes another copy of it: a job without a jid). While the lease hash lives its
-- `seq` makes them stale; past it (finish leaves it to its TTL, or it lapses) the
-- fence this call writes does (lib/tick/given-up-fence.lua): a step that never
-- ran acts on nothing however late it arrives, so finish makes the acks of each
-- one that never ran, whether or not another ran.
-- KEYS: ticks lease
-- ARGV: prefix tickId call steps[]
-- Returns: (nowMs leaseHeld ran[])
-- call: the call number; steps: each given-up step's number and lane ("7a", "8").
-- leaseHeld: 0 when the lease is gone, or stamped by the Redis before a restart
-- (lib/tick/restart-hold.lua): a step that ran then acked without keeping its
-- number, so nobody can tell; the tick leaves those acks to the resurrector (run
-- twice at worst, never lost). ran: 1 or 0 for each step, in the order sent.
-- Replays: a numbered call (lib/tick/replay-call.lua): a replay answers the kept reply,
-- and an older or replayed run changes nothing but the lease's `seq` and kept reply; the
-- fence keeps the highest number written (a run twice writes the same one).
-- A concurrent tick never reads or writes this tick's lease hash or fence.
-- The lease's `gaveup` field tells the tick's finish to raise the fence past itself; set again by
-- a later question, it stays 1.
-- maxmemory: runs (allow-oom): it reads, writes three fields of the lease hash and writes the
-- fence, a few bytes that expire (one key a tick that gave a step up), so that the tick's finish,
-- which frees memory, can follow.
-- @include lib/common/prefix-keys.lua
-- @include lib/tick/replay-call.lua
-- @include lib/tick/restart-hold.lua
-- @include lib/tick/given-up-fence.lua

local tickId = ARGV[2]
local call = tonumber(ARGV[3])
local stepsAt = 4

local lease, seq = KEYS[2], call
local now = now_ms()
local state, kept, _, boot = call_state(lease, seq)
if state == 'replay' then return kept end
if state ~= 'fresh' or restart.stale_stamp(boot, now) then return { now, 0, {} } end
local ran = {}
for k = 1, tonumber(ARGV[stepsAt]) do
  local number, lane = string.match(ARGV[stepsAt + k], '^(%d+)([abcd]?)$')
  local last = redis.call('HGET', lease, 'seq' .. lane)
  ran[k] = (last and tonumber(last) >= tonumber(number)) and 1 or 0
end
given_up_fence.put(tickId, call)
-- For finish, read with its `seq`: raise the fence past itself (lib/tick/given-up-fence.lua).
redis.call('HSET', lease, 'gaveup', '1')
return remember(lease, seq, { now, 1, ran }, nil, nil)
