#!lua flags=allow-oom
-- step: settle finished jobs, extend the lease and fetch more, in one round
-- trip. A tick whose lease is gone may be resurrected at any moment, so it
-- acks but fetches nothing more (a job fetched into its lists now could be
-- orphaned).
-- KEYS: ticks lease process?keys(heartbeat work workers)
-- ARGV: prefix tickId leaseMs deadMaxSize deadMaxAgeSec call beat?keys(number running[](tid work))
--   acks(succeeded[](queue place jobs[]+) others[](code queue job updated delay)&results?(entries[](number
--   state keep jid members) keep ageSec ttlMs)&metrics?m(entries[](name queue entries ms waitMs
--   durations waits) retentionSec perItem[](name ms waitMs))) fetch(batch queues[] picks[])
--   ordered?(names[] succeeded[](name ids[]+(id fence)) others[](code name id fence
--   extra)&metrics?m(entries[]+(runs ms startMs) retentionSec perItem[](ms startMs)))
-- Returns: (nowMs leaseHeld deadEvicted fetched[queue jobs[]+ counts[resurrections interruptions
--   suspect doubts] place] ordered?[](name first ids[]+ payloads[]+ scores[]+ counts[] failures[]
--   resurrections[] suspects[] interruptions[] doubts[]) missed?[] flow?(capped fence parked)
--   sentOn? expired?[] cancelled?[] cancels?[] orderedCancelled?[] drained? ran?)
-- ticks: P.."ticks"; lease: P.."tick:"..ID; process and beat: only as a Sidekiq
-- process (lib/sidekiq/register-process.lua). call: the call number, then
-- optionally the tick's load ("/running/waiting", kept in the lease hash for
-- stats.lua), then optionally a space and the solo marker (lib/tick/run-solo.lua:
-- '-' clear, or the job run alone from now on, noted after the acks; absent: keep). acks:
-- lib/tick/ack-jobs.lua (others: the outcomes not succeeded; results, then metrics: the
-- trailers riding in their count, lib/results/keep-results.lua and
-- lib/metrics/record-runs.lua); fetch: lib/tick/fetch-jobs.lua; ordered:
-- lib/ordered/state.lua, lib/ordered/ack-ids.lua (absent: no ordered names;
-- its others' metrics trailer: lib/metrics/record-ordered-runs.lua).
-- ordered (reply): lib/ordered/fetch-ids.lua's groups, empty for a tick that
-- serves no ordered names; missed: numbers of ack entries not settled: no longer listed, or of a
-- group named by place alone that could not be cut so, which the tick sends again by text
-- (lib/tick/ack-jobs.lua); flow: when the fetch met flow jobs, else {} or
-- nothing; sentOn: when there are any, how many parked flow jobs this call
-- sent back to their queues (its acks, or a dead holder's slot it freed);
-- expired: the jobs the fetch found expired and recorded (lib/expiry/expire-fetched.lua),
-- only when there are any (else {} when later fields follow).
-- cancelled: numbers of ack entries settled as cancelled (lib/tick/ack-jobs.lua);
-- cancels: jids of this tick's jobs marked cancelled that it has not said it
-- heard of (lib/cancel/read-cancel-marks.lua), and "o NAME FENCE ID" for its
-- ordered runs (lib/ordered/cancel-ids.lua): it aborts or never starts them;
-- orderedCancelled: "NAME FENCE" of the ordered runs its acks settled as
-- cancelled (lib/ordered/cancel-ids.lua), for the tick's events.
-- drained: 1 when the fetch took as many as it asked yet left nothing due behind
-- (lib/ordered/fetch-ids.lua's fetch_mixed): the tick asks for no more; 2 when it took
-- everything due but capped ids it took left payloads behind their runs: the tick asks again
-- once they ran, with their acks; 3 when capped ids left payloads behind though more is due (the
-- tick remembers them: begin.lua's drained); else absent.
-- ran: an HTTP lane step's run number (lib/tick/replay-call.lua's lanes), only when its lease was
-- held: the tick takes the jobs of its two steps in flight in the order Redis fetched them. Absent
-- from a step of no lane or of a lane of one connection (TCP: Redis runs its calls in the order
-- sent), and from a script before it: the tick takes replies in send order then.
-- Replays: a numbered call (lib/tick/replay-call.lua). The replay of the last call
-- answers its kept reply (its `drained` too), so the jobs it fetched reach the tick and none is
-- acked twice; an older call's replay does nothing. Without the lease the
-- acks still run, but only on jobs still listed, which a replay no longer
-- finds, and on ordered ids whose token is still this tick's, which a
-- replay no longer finds either: nothing is counted twice. The beat is
-- numbered too: an older or replayed one changes nothing. Flow slots are
-- taken and freed with the jobs' moves, so they are settled once too. The
-- solo marker is a plain write of the tick's record: run twice, the same;
-- so is the load, and a replay answers before reaching either.
-- Two steps at once (a lane each: 'a' and 'b' over HTTP, 'c' and 'd' on one TCP connection,
-- lib/tick/replay-call.lua): they
-- may reach Redis in either order, and each acks only jobs the tick had
-- before it sent them, so either order settles the same jobs; each fetch is
-- fresh, neither makes the other stale, and a replay of either finds its own
-- jobs however many the other fetched in front of them. The tick never
-- sends a solo marker with a call in flight. A lane step also keeps the
-- SHA-1 of each job it fetched (40 bytes a job, a batch at most, in the
-- lease hash), found again by text: jobs of the same text (no jid) are
-- told apart by no position; a step of a lane of one connection keeps instead the count and the
-- length of its joined reply a queue (no pass over its jobs), and its replay reads its jobs by
-- position behind those of the other lane's later call (ahead_of), or answers a lost lease when
-- they are not as kept or more than one call of the other lane ran after it (a read: run twice, the
-- same answer, nothing written; at maxmemory it writes nothing either). Each lane step that holds the lease counts itself in the lease hash
-- (`ran`, one HINCRBY) and answers the count: Redis runs scripts one at a time, so the counts are
-- the order the two fetched in; the count is kept with the reply, so a replay answers the same one.
-- A lane step of one connection counts itself in the HSET that keeps its reply (`ran`, and its
-- lane's `ranc` or `rand`, which its replay compares with the other lane's) and answers no count.
-- The lease's `boot` stamp is read in call_state's HMGET with `seq` (one command, not two): a read,
-- so a replay or a concurrent tick meets the same as before.
-- A given-up step (src/tick/given-up.ts) that reaches Redis on a lost lease below the tick's
-- given-up fence (lib/tick/given-up-fence.lua) acts on nothing and answers as a stale call: finish
-- made its acks, or left them to the resurrector. One GET, on a lost lease only: a step that holds
-- the lease reads nothing more. Run twice, stale twice; a concurrent tick has its own fence.
-- A lease stamped by the Redis before a restart (lib/tick/restart-hold.lua) counts as lost:
-- the acks run, nothing is fetched, leaseHeld 0. During the hold after a restart no ordered
-- id, flow slot or unique key is handed out (a flow job waits in the schedule until it ends).
-- A capped run acked with its rest behind it and nothing arrived is continued in place when the
-- lease is held (lib/ordered/continue-runs.lua): the ack leaves it held and the fetch takes its
-- rest, or lets it go to `ready` as the ack would have; the keys end as the ack and fetch one after
-- the other leave them. The candidates live inside this call: a replay answers the kept reply
-- before any ack, and reads the runs' payloads back by their `capped` notes as before.
-- allow-oom: acking frees memory; it must run when Redis is full.
-- maxmemory: runs (allow-oom): as finish (acks free memory; what they add is bounded the same way;
-- a lane step's `ran` is one small field of the lease hash, expiring with it),
-- and its fetches move jobs without growth (an ordered id fetched joins `o:NAME:held`, which lists
-- only ids ticks hold: lib/ordered/state.lua). The reply's jobs, joined (lib/common/joined.lua), are
-- a string in the script's memory, not a key.
-- Joined: the acks' successes may come joined in one value a queue, and the fetched jobs go back
-- joined a queue, in chunks of at most 8 KiB past that (lib/common/joined.lua); a replay answers
-- its kept groups joined and chunked the same way (the chunks are cut by the texts' lengths alone).
-- Successes that are exactly the oldest jobs of a list are cut from its tail (lib/tick/ack-jobs.lua
-- take_tail): a replay finds them gone and settles nothing, as before; a concurrent tick never
-- touches this tick's lists; at maxmemory the cut only frees memory.
-- A whole fetched group named by its place (the reply's `place` a group: lib/tick/fetch-jobs.lua)
-- is cut the same way, no job read, when the lease hash's counts (`pushed:QUEUE`, `cut:QUEUE`) agree
-- with the list (lib/tick/ack-jobs.lua by_place): a replay finds `cut` past the place and goes by
-- text, finding nothing; a lost lease has no counts; the other lane's fetch counts its group in the
-- same fields, one script at a time. At maxmemory the counts are two small fields a queue, in the lease hash.
-- A step may name such a group by its place alone (no text): not cut so, it stays listed and its
-- entries are answered in `missed`, kept with the reply, so a replay answers them again and the tick
-- sends them by text in a later call (a step or its finish, which never names a group so); run
-- twice, the second run finds `cut` past the place and settles nothing. A concurrent tick never
-- writes this tick's lists; the other lane's ack of the same queue cuts its own group first or
-- after, and a group whose place is no longer `cut` is answered missed. At maxmemory it writes nothing.
-- @include lib/common/prefix-keys.lua
-- @include lib/tick/replay-call.lua
-- @include lib/ordered/state.lua
-- @include lib/expiry/expire-fetched.lua
-- @include lib/tick/fetch-jobs.lua
-- @include lib/ordered/fetch-ids.lua
-- @include lib/ordered/continue-runs.lua
-- @include lib/sidekiq/register-process.lua
-- @include lib/flow/flow.lua
-- @include lib/cancel/read-cancel-marks.lua
-- @include lib/tick/ack-jobs.lua
-- @include lib/ordered/cancel-ids.lua
-- @include lib/ordered/ack-ids.lua
-- @include lib/tick/run-solo.lua
-- @include lib/tick/restart-hold.lua
-- @include lib/tick/given-up-fence.lua
-- @include lib/common/joined.lua

-- For the replay of a call of a lane of one connection (lib/tick/replay-call.lua): the jobs of each
-- queue that the other lane's last call fetched, when it ran after this one (its lane's run number,
-- `ranc` or `rand`, is higher), since they sit in front of this call's at the head of the tick's lists.
-- False when more than one call of the other lane ran after this one (its run number is higher by
-- more than one; this call's own lane ran none meanwhile, it holds one call at a time): the tick took
-- a reply of that lane before this one's, as when its resends after a transient error (LOADING, a
-- timeout: src/tick/calls.ts) let a call sent after this one run before it. The earlier call's jobs,
-- some maybe acked since, sit in front too and its counts are not kept: the replay answers a lost lease.
local function ahead_of(lease, lane)
  local other = ({ c = 'd', d = 'c' })[lane]
  if not other then return nil end
  local row = redis.call('HMGET', lease, 'ran' .. lane, 'ran' .. other, 'reply' .. other)
  if not (row[1] and row[2] and row[3] and tonumber(row[2]) > tonumber(row[1])) then return nil end
  if tonumber(row[2]) > tonumber(row[1]) + 1 then return false end
  local ahead, groups = {}, decode_reply(row[3])[4] or {}
  for g = 1, #groups, 4 do
    local n = groups[g + 1]
    if type(n) == 'table' then n = n[1] end
    ahead[groups[g]] = (ahead[groups[g]] or 0) + n
  end
  return ahead
end

-- A lane of one connection's kept groups ({ count, length }: lib/tick/replay-call.lua's
-- without_jobs) against the reply's joined groups (lib/common/joined.lua: one text, chunks, or the
-- texts themselves): `check` false fills each length in, true answers whether each is as kept.
local function joined_lengths(kept, groups, check)
  for g = 2, #kept, 4 do
    local n, v = kept[g], groups[g]
    if type(n) == 'table' then
      local len = 0
      if type(v) == 'string' then len = #v else for k = 1, #v do len = len + #v[k] end end
      if not check then n[2] = len elseif n[2] ~= len then return false end
    end
  end
  return true
end

local tickId = ARGV[2]
local leaseMs = ARGV[3]
local deadMaxSize = tonumber(ARGV[4])
local deadMaxAgeSec = tonumber(ARGV[5])
local call = ARGV[6]
local beatAt = #KEYS > 2 and 7 or nil
local acksAt = beatAt and sidekiq_section_end(beatAt) or 7
local fetchAt = ack_args_end(acksAt)
local orderedAt = fetch_args_end(fetchAt)

local tick, lease = tickId, KEYS[2]
local seq, solo, load, lane = call_number(call)
local now = now_ms()
local state, kept, marked, boot, ran_before = call_state(lease, seq, lane)
local connection_lane = lane == 'c' or lane == 'd'
if state == 'replay' then
  -- A lane of one connection finds its jobs behind those of a later call of the other lane, and
  -- answers a lost lease rather than jobs not joined to the length it kept.
  local ahead = lane and ahead_of(lease, lane)
  local groups = ahead ~= false and with_jobs(tick, kept[4], ahead or nil)
  groups = groups and joined.groups(groups)
  if not groups or (connection_lane and not joined_lengths(kept[4], groups, true)) then return { now, 0, 0, {} } end
  kept[4] = groups
  return ordered_reply.rehydrate(kept, 5)
end
if state == 'stale' or (state == 'lost' and given_up_fence.below(tick, seq)) then return { now, 0, 0, {} } end
local held = state == 'fresh' and not restart.stale_stamp(boot, now)
local _, evicted, missed, cancelled, marks, counted = ack(tick, acksAt, now, deadMaxSize, deadMaxAgeSec, state == 'fresh', marked)
local names, ordered_acks_at = ordered_names(orderedAt)
-- A step that holds the lease continues its capped runs in place (lib/ordered/continue-runs.lua).
local continuing = held and {} or nil
local _, ordered_evicted = ordered_ack(tick, ordered_acks_at, now, deadMaxSize, deadMaxAgeSec, marks, names.caps, continuing)
local cancels = unheard_cancels(marks)
evicted = evicted + ordered_evicted
-- Cancels (lib/cancel/read-cancel-marks.lua) close the reply, after every earlier field.
local function with_cancels(reply)
  if #cancelled == 0 and #cancels == 0 and #ordered_settled == 0 then return reply end
  reply[5], reply[7], reply[8], reply[9] = reply[5] or {}, reply[7] or {}, reply[8] or 0, reply[9] or {}
  reply[10], reply[11] = cancelled, cancels
  if #ordered_settled > 0 then reply[12] = ordered_settled end
  return reply
end
if not held then return with_cancels({ now, 0, evicted, {}, {}, missed }) end
redis.call('PEXPIRE', lease, leaseMs)
note_solo(tick, solo)
-- Lanes only. A lane of one connection (TCP) writes its count with its kept reply: no command more.
local ran = lane and (connection_lane and ran_before + 1 or redis.call('HINCRBY', lease, 'ran', 1))
if beatAt then sidekiq_beat(3, now, leaseMs, beatAt) end
local batch, queues, picks = fetch_args(fetchAt)
keep_expired_like_dead(deadMaxSize, deadMaxAgeSec)
if #continuing > 0 then continued_runs.check(tick, continuing, now) end
local fetched, ordered, flowed, took_all, behind = fetch_mixed(tick, batch, queues, picks, names, now, counted, continuing)
if #continuing > 0 then continued_runs.release_left(tick, continuing) end
local fetched_count = 0
for g = 2, #fetched, 4 do fetched_count = fetched_count + #fetched[g] end
for _, group in ipairs(ordered) do fetched_count = fetched_count + #group[3] end
-- After every earlier field: the fetch filled its batch and left nothing due.
local function with_drained(reply)
  if batch == 0 or not (behind or (took_all and fetched_count >= batch)) then return reply end
  reply[5], reply[7], reply[8], reply[9] = reply[5] or {}, reply[7] or {}, reply[8] or 0, reply[9] or {}
  reply[10], reply[11], reply[12] = reply[10] or {}, reply[11] or {}, reply[12] or {}
  reply[13] = not behind and 1 or took_all and 2 or 3
  return reply
end
-- Ordered groups are part of the reply only for a tick that serves ordered names.
local kept_reply, reply = { now, 1, evicted, without_jobs(fetched, lane), {}, missed }, { now, 1, evicted, joined.groups(fetched), {}, missed }
if connection_lane then joined_lengths(kept_reply[4], reply[4]) end
if #names > 0 then kept_reply[5], reply[5] = ordered_reply.slim(ordered) end
if flowed then kept_reply[7], reply[7] = flowed, flowed end
local sent_on = flow_lib and flow_lib.sent_on or 0
if sent_on > 0 then
  kept_reply[7], reply[7] = kept_reply[7] or {}, reply[7] or {}
  kept_reply[8], reply[8] = sent_on, sent_on
end
if #expired_now > 0 then
  kept_reply[7], reply[7] = kept_reply[7] or {}, reply[7] or {}
  kept_reply[8], reply[8] = kept_reply[8] or 0, reply[8] or 0
  kept_reply[9], reply[9] = expired_now, expired_now
end
-- Last of all: a lane step's run number, every earlier field filled.
local function with_ran(reply)
  if not ran then return reply end
  reply[5], reply[7], reply[8], reply[9] = reply[5] or {}, reply[7] or {}, reply[8] or 0, reply[9] or {}
  reply[10], reply[11], reply[12], reply[13] = reply[10] or {}, reply[11] or {}, reply[12] or {}, reply[13] or 0
  reply[14] = ran
  return reply
end
-- A lane of one connection answers no run number (its calls run in the order sent), and keeps its
-- count in the lease hash instead: its reply has no field more than a step's of no lane.
if connection_lane then
  remember(lease, seq, with_drained(with_cancels(kept_reply)), load_text(load, fetched_count), lane, ran)
  return with_drained(with_cancels(reply))
end
remember(lease, seq, with_ran(with_drained(with_cancels(kept_reply))), load_text(load, fetched_count), lane)
return with_ran(with_drained(with_cancels(reply)))
