#!lua flags=allow-oom
-- finish: settle the last jobs (unstarted ones go back to the head of their
-- queues), release the resurrector lock if this tick holds it, and remove
-- the tick's registration once its lists are empty. A job still listed (a
-- handler that ignored the abort) keeps the registration, and the lease is
-- left to expire so a later tick resurrects it; its load (lib/tick/run-solo.lua)
-- then says those jobs run and none waits.
-- As a Sidekiq process, the tick leaves `processes` with its lists empty;
-- otherwise its heartbeat shows the jobs still running until the lease
-- expires.
-- KEYS: ticks lease process?keys(heartbeat work workers)
-- ARGV: prefix tickId leaseMs deadMaxSize deadMaxAgeSec call workflows[]+(id fence disposition extra
--   steps[](name record) parks[](step kind seq ms event match)) beat?keys(number running[](tid work))
--   acks(succeeded[](queue place jobs[]+) others[](code queue job updated delay)&results?(entries[](number
--   state keep jid members) keep ageSec ttlMs)&metrics?m(entries[](name queue entries ms waitMs
--   durations waits) retentionSec perItem[](name ms waitMs))) queues[] unstartable(budgetMs windowMs
--   entries[](name reason queue limitMs count)) recent ordered?(names[]
--   succeeded[](name ids[]+(id fence)) others[](code name id fence extra)&metrics?m(entries[]+(runs ms
--   startMs) retentionSec perItem[](ms startMs)))
-- Returns: (nowMs left deadEvicted orderedReady? missed?[] sentOn? cancelled?[] orderedCancelled?[] committed?[] leaseGone?)
-- ticks: P.."ticks"; lease: P.."tick:"..ID; process and beat: only as a Sidekiq
-- process (lib/sidekiq/register-process.lua). call: the call number; acks:
-- lib/tick/ack-jobs.lua (others: the outcomes not succeeded; results, then metrics: the
-- trailers riding in their count, lib/results/keep-results.lua and
-- lib/metrics/record-runs.lua); queues: the queues this tick served; unstartable:
-- the tick's budget and the jobs it met that it could not start, kept for stats
-- (lib/tick/record-unstartable.lua, bounded at maxmemory too); ordered:
-- lib/ordered/state.lua, lib/ordered/ack-ids.lua (absent: no ordered names).
-- recent: the tick's summary for the recent ticks ('' keeps none; lib/tick/record-recent.lua).
-- left: jobs and ordered ids left in its lists; orderedReady: ordered ids made
-- ready by these acks; missed: numbers of ack entries no longer listed
-- (lib/tick/ack-jobs.lua; finish names no group by place alone, src/tick/passes/ack.ts); sentOn: parked flow jobs these acks sent back to
-- their queues; cancelled: numbers of ack entries settled as cancelled
-- (lib/tick/ack-jobs.lua); orderedCancelled: "NAME FENCE" of the ordered
-- runs these acks settled as cancelled (lib/ordered/cancel-ids.lua), for the
-- tick's events. A stale call answers only the first three. leaseGone: 1 when the call
-- found no lease (it acted on what was still listed: the tick reports its lease lost), or, when it
-- carries workflow commits, a lease taken before a Redis restart (lib/tick/restart-hold.lua): it
-- commits none of them (workflow_tick.lua says why) and acts on the acks as ever.
-- workflows: the workflow commits that end the tick's last executions (a run's
-- output, its park, yield or retry, with the step results held for it:
-- src/workflows/execute.ts), so a run's last call rides on the tick's last one;
-- each fenced as in workflow_tick.lua (lib/workflows/commit-runs.lua), applied only
-- while the lease lives, and packed as there (reading them reads no key: a replay reads the same ones).
-- committed: 1 or 0 per commit, only when commits were sent.
-- Once its lists are empty the tick's cancel marks go too.
-- Replays: a numbered call (lib/tick/replay-call.lua). The lease hash outlives finish
-- until its TTL runs out, holding the reply, so a replay answers it; after
-- that, a replay finds none of its jobs listed and moves nothing (but for a tick that gave a step
-- up, below), and commits
-- nothing (the lease is gone: its workflow runs are claimed again). The
-- lease is never re-created here, nor the Sidekiq heartbeat (it beats only
-- while the lease lives; leaving twice deletes nothing more). Successes that are exactly
-- the oldest jobs of a list are cut from its tail (lib/tick/ack-jobs.lua take_tail): a replay
-- finds them gone and moves nothing, as before, and no other tick writes this tick's lists.
-- A tick that gave a step up may have a step's batch listed still (a step that ran, its reply never
-- taken): finish raises the tick's given-up fence past its own number (when the lease hash has
-- `gaveup`, read in call_state's HMGET: no command for other ticks; on a lost lease, when the fence
-- is there), so a copy reaching Redis past the hash is below it and acts on nothing, answered
-- leaseGone; else it would ack by text again and take a copy of that batch nobody ran
-- (lib/tick/given-up-fence.lua). A concurrent tick never reads or writes this tick's fence.
-- maxmemory: runs (allow-oom): acks are what free memory. What it adds is bounded: a retry takes
-- its acked job's place, the dead set is capped (deadMaxSize, deadMaxAgeSec), an awaited job's
-- result expires, a workflow commit is held to the step-result limit and comes only from runs
-- already held. The recent ticks' list is capped in entries and bytes and not written at maxmemory.
-- A cut from a list's tail only frees memory. Raising the fence rewrites a key that is there (XX),
-- a few bytes that expire.
-- @include lib/common/prefix-keys.lua
-- @include lib/tick/replay-call.lua
-- @include lib/ordered/state.lua
-- @include lib/sidekiq/register-process.lua
-- @include lib/flow/flow.lua
-- @include lib/cancel/read-cancel-marks.lua
-- @include lib/common/counted-args.lua
-- @include lib/tick/ack-jobs.lua
-- @include lib/tick/record-unstartable.lua
-- @include lib/tick/record-recent.lua
-- @include lib/ordered/cancel-ids.lua
-- @include lib/ordered/ack-ids.lua
-- @include lib/workflows/commit-runs.lua
-- @include lib/tick/restart-hold.lua
-- @include lib/tick/given-up-fence.lua

local tickId = ARGV[2]
local leaseMs = ARGV[3]
local deadMaxSize = tonumber(ARGV[4])
local deadMaxAgeSec = tonumber(ARGV[5])
local call = tonumber(ARGV[6])
local workflowsAt = 7
-- No commits ('0': every finish of an app without workflows) loads no workflow library (scripts/lua-lazy.mjs).
local commits, after_workflows = 0, workflowsAt + 1
if ARGV[workflowsAt] ~= '0' then commits, after_workflows = wf_commits_skip(workflowsAt) end
local beatAt = #KEYS > 2 and after_workflows or nil
local acksAt = beatAt and sidekiq_section_end(beatAt) or after_workflows
local queuesAt = ack_args_end(acksAt)
local unstartableAt = queuesAt + 1 + tonumber(ARGV[queuesAt])
local recent = ARGV[unstartableAt + 3 + 5 * tonumber(ARGV[unstartableAt + 2])]
local orderedAt = unstartableAt + 4 + 5 * tonumber(ARGV[unstartableAt + 2])

local tick, lease, seq = tickId, KEYS[2], call
local now = now_ms()
local state, kept, marked, _, _, gave_up = call_state(lease, seq)
if state == 'replay' then return kept end
if state == 'stale' then return { now, 0, 0 } end
-- A tick that gave a step up: a copy of finish past the lease, below the fence, finds its first copy
-- ran (its acks made: a second would take a copy a step that ran fetched) and acts on nothing,
-- answered as a lost lease (lib/tick/given-up-fence.lua). Whichever copy acts raises the fence.
local fence = state == 'lost' and given_up_fence.read(tick)
if fence and seq < fence then
  local none = {}
  for k = 1, commits do none[k] = 0 end
  return { now, 0, 0, 0, {}, 0, {}, {}, none, 1 }
end
if fence or gave_up then given_up_fence.raise(tick, seq) end
-- Before the acks: a commit is fenced by its run's owner and fence, not by what the acks change. A lease
-- taken before a Redis restart commits none (workflow_tick.lua says why) and is answered gone.
local committed = {}
local stale = state == 'fresh' and commits > 0 and restart.stale(lease, now)
if state == 'fresh' and not stale and commits > 0 then
  committed = wf_commit_all(tick, workflowsAt, now)
else
  for k = 1, commits do committed[k] = 0 end
end
local _, evicted, missed, cancelled, marks = ack(tick, acksAt, now, deadMaxSize, deadMaxAgeSec, state == 'fresh', marked)
local names, ordered_acks_at = ordered_names(orderedAt)
local ready_again, ordered_evicted = ordered_ack(tick, ordered_acks_at, now, deadMaxSize, deadMaxAgeSec, marks, names.caps)
if redis.call('GET', P .. 'resurrector') == tick then redis.call('DEL', P .. 'resurrector') end
local served = counted_args(queuesAt)
-- Only while the lease lives: a late finish of a dead tick changes nothing it need not.
if state == 'fresh' then
  record_unstartable(unstartableAt, served, now)
  record_recent(recent, now)
end
local left = 0
for _, queue in ipairs(served) do
  left = left + redis.call('LLEN', inproc_key(tick, queue))
end
if #names > 0 then left = left + redis.call('HLEN', oinproc_key(tick)) end
-- A solo job still listed was abandoned running: its record stays for the resurrector.
if left == 0 then
  redis.call('DEL', cancel_marks_key(tick))
  redis.call('HDEL', KEYS[1], tick)
  redis.call('HDEL', P .. 'solo', tick)
  if #names > 0 then redis.call('SREM', P .. 'oticks', tick) end
elseif state == 'fresh' then
  -- What is still listed are handlers that ignored the abort: running, none waiting (stats.lua).
  redis.call('HSET', lease, 'load', left .. ' 0')
end
if #KEYS > 2 then
  if left == 0 then sidekiq_leave(3) elseif state == 'fresh' then sidekiq_beat(3, now, leaseMs, beatAt) end
end
local reply = { now, left, evicted + ordered_evicted, 0, missed, flow_lib and flow_lib.sent_on or 0 }
if #cancelled > 0 then reply[7] = cancelled end
if #ordered_settled > 0 then reply[7], reply[8] = cancelled, ordered_settled end
if #names > 0 then reply[4] = ready_again end
if #committed > 0 then reply[7], reply[8], reply[9] = reply[7] or {}, reply[8] or {}, committed end
-- The lease was gone: another tick may have resurrected (and run again) what these acks found missing.
if state == 'lost' or stale then reply[7], reply[8], reply[9], reply[10] = reply[7] or {}, reply[8] or {}, reply[9] or {}, 1 end
if state == 'fresh' then remember(lease, seq, reply) end
return reply
