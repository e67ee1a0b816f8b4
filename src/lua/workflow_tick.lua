#!lua flags=allow-oom
-- workflow_tick: a tick's workflow call, sent only by apps that declare
-- workflows. Commits what the tick's executions did (fenced, per run:
-- lib/workflows/commit-runs.lua), removes runs past their retention, then
-- claims due runs for the tick (lib/workflows/claim-runs.lua), so one round
-- trip carries the steps of every run that advanced and starts the next runs.
-- KEYS: ticks lease
-- ARGV: prefix tickId call claim retentionMs commits[]+(id fence disposition extra steps[](name
--   record) parks[](step kind seq ms event match))
-- Returns: (leaseHeld nowMs committed[]# claimed[](id name input fence steps[] keyForm version) more cancelled[])
-- call: this tick's workflow call number (1, 2, …; its own series: these
-- calls go one at a time beside the tick's other calls). claim: runs to claim; -1 when the
-- tick's slots are full (nothing claimed, no ended run removed, `more` not read: answered 1).
-- commits: packed, "j<values>" then the section's values in one value (lib/workflows/commit-runs.lua),
-- or a counted section when one holds the separator; reading it reads no key, so a replay reads the
-- same commits, and it is the call's own memory, freed with it (nothing more at maxmemory).
-- committed: 1 or 0 per commit (0: the run is no longer held with that fence), as one string of digits.
-- claimed: id, name, input JSON, fence, the run's step records (name, JSON, cut, …;
-- results only up to a budget: lib/workflows/carry-steps.lua), its idempotency key form
-- (lib/workflows/claim-runs.lua) and the workflow version it runs on ('1' for a run stored without one).
-- A call that committed runs resolves no chunk of a pending event while it claims (the sender's calls
-- and the tick's begin do): its commits and a chunk together held Redis too long (lib/workflows/claim-runs.lua).
-- more: runs are still due. cancelled: runs this tick holds that were
-- cancelled since its last call (workflow_cancel.lua): it aborts their steps.
-- Replays: the number and reply of the last call are kept in the lease hash
-- (fields wseq, wreply; lib/tick/replay-call.lua's encoding): a replay answers
-- the kept reply and acts on nothing, so no run is claimed twice. The kept
-- reply names the claimed runs by id and fence only, and a replay reads their
-- records again: the lease holds no step result, whatever the runs hold. Commits are
-- fenced and absolute, so even an unnumbered rerun would write the same values.
-- Without the lease it does nothing (the tick's runs are being reclaimed).
-- For a lease after a Redis restart (lib/tick/restart-hold.lua) no run is claimed and none
-- said due; commits still apply, fenced by their runs' tokens. A lease taken before the restart
-- is lost, as extend and step answer: the call does nothing and answers leaseHeld 0, so the tick
-- stops and reports it. The restart may have forgotten the tick's later claims (a commit of such a
-- run is refused by its fence) and its earlier commits of a run still held (a commit would then store
-- a step over the gap): none is written, the runs go back once the lease expires and their uncommitted
-- steps run again. A resend of such a call finds the same (the run_id only changes again): nothing.
-- maxmemory: runs (allow-oom): the runs this tick holds commit, so no step runs again for a refused
-- commit; each commit is held to the step-result limit, and no run is claimed while Redis is full
-- (lib/workflows/claim-runs.lua), so what it adds is bounded by the runs held when Redis filled.
-- @include lib/common/prefix-keys.lua
-- @include lib/tick/replay-call.lua
-- @include lib/tick/restart-hold.lua
-- @include lib/workflows/claim-runs.lua
-- @include lib/workflows/run-state.lua
-- @include lib/workflows/carry-steps.lua
-- @include lib/workflows/commit-runs.lua

local tickId = ARGV[2]
local call = tonumber(ARGV[3])
local claim = tonumber(ARGV[4])
local retentionMs = tonumber(ARGV[5])
local commitsAt = 6

local lease, tick, seq = KEYS[2], tickId, call
-- `seq` is the lease's from begin on: without it there is no lease. `cancels` flags a tick some cancel
-- marked (lib/cancel/read-cancel-marks.lua); workflow_cancel.lua notes a run in wf:cancel:TICK only then.
-- `boot`: the run_id of the Redis that took the lease (lib/tick/restart-hold.lua).
local row = redis.call('HMGET', lease, 'seq', 'wseq', 'cancels', 'boot')
if not row[1] then return { 0, now_ms(), {}, {}, 0, {} } end
local last = row[2]
if last and tonumber(last) == seq then
  local kept = decode_reply(redis.call('HGET', lease, 'wreply'))
  kept[4] = wf_carry.again(kept[4])
  return kept
end
if last and tonumber(last) > seq then return { 1, now_ms(), {}, {}, 0, {} } end
local now = now_ms()
if restart.stale_stamp(row[4], now) then return { 0, now, {}, {}, 0, {} } end
local committed = wf_commit_all(tick, commitsAt, now)
-- claim < 0: the tick's slots are full; no claim, no removal, `more` not read (answered 1).
local claimed, more = {}, 1
if claim >= 0 then
  wf_expire(now - retentionMs)
  claimed, more = wf_claim(tick, claim, now, #committed > 0)
end
local cancelled = {}
if row[3] then
  local cancel_key = wf_key('cancel', tick)
  cancelled = redis.call('SMEMBERS', cancel_key)
  if #cancelled > 0 then redis.call('DEL', cancel_key) end
end
local flags = table.concat(committed)
local kept = { 1, now, flags, wf_carry.kept(claimed), more, cancelled }
redis.call('HSET', lease, 'wseq', seq, 'wreply', table.concat(encode_reply(kept)))
return { 1, now, flags, claimed, more, cancelled }
