#!lua
-- recurring: a tick's call for recurring jobs, sent only when begin found
-- the declaration out of sync or some schedule due. Syncs this deployment's
-- declaration, claims due slots (each slot's job is enqueued once, jid
-- "name:slot"), prunes schedules no deployment declares any more, then
-- fetches what begin's batch left room for, so the jobs it enqueued run in
-- this tick at no further round trip.
-- KEYS: ticks lease
-- ARGV: prefix tickId call shiftMs pruneGraceMs digest sync declared[](name timingFp specFp spec
--   next) due[](name specFp slot next slots[](slot queue job)) orphans[](name slot) fetch(batch
--   queues[] picks[])
-- Returns: (leaseHeld enqueued claimed[] pruned fetched[queue jobs[]+ counts[resurrections
--   interruptions suspect doubts] place] flow?(capped fence parked) expired?[])
-- call: the call number; shiftMs: the schedule clock shift; digest: the
-- declaration digest ('' when none); sync: 1 to sync. declared: the whole
-- declaration when syncing (none otherwise): name, timing fp, spec fp, spec
-- JSON, next slot ms or ''. due: the due schedules this deployment declares:
-- name, spec fp, the due slot ms begin saw, next slot ms or '', and the slots
-- to enqueue (slot ms, queue, job JSON ending in `}`). orphans: due ones it
-- does not declare (name, due slot ms begin saw). fetch: lib/tick/fetch-jobs.lua.
-- claimed: the names claimed; flow: when the fetch met flow jobs
-- (lib/tick/fetch-jobs.lua); expired: the jobs the fetch found expired and
-- recorded (lib/expiry/expire-fetched.lua), only when there are any.
-- Replays: a numbered call (lib/tick/replay-call.lua): a replay answers the kept
-- reply. Claiming is also safe without it: a claim acts only if the due
-- slot still is the one begin saw (compare-and-set; a claim moves it on),
-- and enqueues only slots after the last one claimed, so concurrent ticks,
-- two deployments or a rerun never enqueue one slot twice. A rerun of the
-- sync finds the specs it wrote and changes nothing. Without the lease it
-- does nothing at all (the tick may be resurrected: it must fetch nothing).
-- No allow-oom: when Redis is full nothing is enqueued (the tick goes on);
-- the slots stay due and are claimed by a later tick.
-- A paused schedule (P.."schedules:paused") is claimed as ever, so its due time moves on, and
-- enqueues nothing: resumed, it runs from its next slot, not the ones it passed.
-- maxmemory: refused at once while Redis is full (its `#!lua` line declares no allow-oom): nothing
-- written; the tick goes on without it, and a later tick enqueues the due slots once memory frees.
-- @include lib/common/prefix-keys.lua
-- @include lib/tick/replay-call.lua
-- @include lib/expiry/expire-fetched.lua
-- @include lib/tick/fetch-jobs.lua
-- @include lib/order/read-order.lua
-- @include lib/order/queue-job.lua
-- @include lib/recurring/due-args-end.lua

local tickId = ARGV[2]
local call = tonumber(ARGV[3])
local shiftMs = tonumber(ARGV[4])
local pruneGraceMs = tonumber(ARGV[5])
local digest = ARGV[6]
local sync = ARGV[7] == '1'
local declaredAt = 8
local dueAt = declaredAt + 1 + 5 * tonumber(ARGV[declaredAt])
local orphansAt = due_args_end(dueAt)
local fetchAt = orphansAt + 1 + 2 * tonumber(ARGV[orphansAt])

local lease, seq = KEYS[2], call
local state, kept = call_state(lease, seq)
if state == 'replay' then
  kept[5] = with_jobs(tickId, kept[5])
  return kept
end
if state ~= 'fresh' then return { 0, 0, {}, 0, {} } end
local real = now_ms()
local now, grace = real + shiftMs, pruneGraceMs
local S = P .. 'schedules:'
local due, fps, specs, lasts, orphans = S .. 'due', S .. 'fp', S .. 'spec', S .. 'last', S .. 'orphans'

local function set_due(name, next_slot)
  if next_slot == '' then redis.call('ZREM', due, name) else redis.call('ZADD', due, next_slot, name) end
end

-- Moves the due time earlier, never later.
local function due_by(name, at)
  local score = redis.call('ZSCORE', due, name)
  if not score or tonumber(score) > at then redis.call('ZADD', due, at, name) end
end

-- An orphan is due at the end of its grace, so the tick that then finds it
-- due prunes it, even if no declaration changes again.
local function orphan(name)
  local since = tonumber(redis.call('HGET', orphans, name))
  if not since then
    redis.call('HSET', orphans, name, now)
    since = now
  elseif now - since >= grace then
    redis.call('ZREM', due, name)
    for _, hash in ipairs({ fps, specs, lasts, orphans }) do redis.call('HDEL', hash, name) end
    return 1
  end
  due_by(name, since + grace)
  return 0
end

local pruned, i = 0, declaredAt + 1
local declared = {}
for _ = 1, tonumber(ARGV[declaredAt]) do
  local name, timing, fp, spec, next_slot = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  i = i + 5
  declared[name] = true
  local stored = redis.call('HGET', fps, name)
  local was_orphan = redis.call('HDEL', orphans, name) == 1
  if not stored or string.match(stored, '^%S+') ~= timing then
    set_due(name, next_slot) -- new, or its timing changed: from its next slot on
  elseif was_orphan and next_slot ~= '' then
    due_by(name, tonumber(next_slot)) -- declared again: undo the postponement
  end
  if stored ~= timing .. ' ' .. fp then
    redis.call('HSET', fps, name, timing .. ' ' .. fp)
    redis.call('HSET', specs, name, spec)
  end
end
if sync then
  for _, name in ipairs(redis.call('HKEYS', fps)) do
    if not declared[name] then pruned = pruned + orphan(name) end
  end
  if digest == '' then redis.call('DEL', S .. 'digest') else redis.call('SET', S .. 'digest', digest) end
end

local stamp = string.format('%.3f', real / 1000)
local enqueued, claimed, known = 0, {}, {}
i = dueAt + 1
for _ = 1, tonumber(ARGV[dueAt]) do
  local name, fp, seen, next_slot, k = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2]), ARGV[i + 3], tonumber(ARGV[i + 4])
  local first = i + 5
  i = first + 3 * k
  local score = tonumber(redis.call('ZSCORE', due, name))
  local stored = redis.call('HGET', fps, name)
  -- Someone claimed it since begin (score moved), or Redis holds another spec: leave it.
  if score == seen and stored and string.match(stored, '%S+$') == fp then
    local last = tonumber(redis.call('HGET', lasts, name)) or -1
    -- Paused (tq.schedules.pause): its slots pass and move it on, as claimed, but enqueue nothing.
    local paused = redis.call('SISMEMBER', S .. 'paused', name) == 1
    local top
    for j = first, first + 3 * (k - 1), 3 do
      if tonumber(ARGV[j]) > last then
        last, top = tonumber(ARGV[j]), ARGV[j]
        if paused then
          top = nil
        else
          if not known[ARGV[j + 1]] then
            redis.call('SADD', P .. 'queues', ARGV[j + 1])
            known[ARGV[j + 1]] = true
          end
          order.push(ARGV[j + 1], string.sub(ARGV[j + 2], 1, -2) .. ',"created_at":' .. stamp .. ',"enqueued_at":' .. stamp .. '}', false)
          enqueued = enqueued + 1
        end
      end
    end
    if top then redis.call('HSET', lasts, name, top) end -- its jid is name:top
    set_due(name, next_slot)
    claimed[#claimed + 1] = name
  end
end

i = orphansAt
for _ = 1, tonumber(ARGV[orphansAt]) do
  local name, seen = ARGV[i + 1], tonumber(ARGV[i + 2])
  i = i + 2
  -- Only one still marked: if another deployment declared it since, it is its to run.
  if tonumber(redis.call('ZSCORE', due, name)) == seen and redis.call('HEXISTS', orphans, name) == 1 then
    pruned = pruned + orphan(name)
  end
end
local batch, queues, picks = fetch_args(fetchAt)
local fetched, flowed = fetch(tickId, batch, queues, picks)
local expired = #expired_now > 0 and expired_now or nil
if expired then flowed = flowed or {} end
remember(lease, seq, { 1, enqueued, claimed, pruned, without_jobs(fetched), flowed, expired })
return { 1, enqueued, claimed, pruned, fetched, flowed, expired }
