-- partition_adopt: puts a job moved out of the old partition layout into its
-- partition in the new one (migratePartitions), as stored, byte for byte: a
-- queued job into the partition's schedule, due at once in its old order (the schedule pass
-- queues it as any due job, with its priority and group), a scheduled, retry
-- or dead job into the same set with the same score. With it comes what it
-- depended on in the old layout (partition_carry_read.lua): the debounce
-- window it held open, its until-executed and coalesce wait claims, its rate
-- limit's deferral and its rate key's starts of the last period, so a
-- duplicate is still refused or merged and the limit still counts what
-- started before the move.
-- KEYS: adopted into
-- ARGV: prefix jid score job keepMs windowFirst windowTtl claim wait deferred rate[](member at)
-- Returns: number
-- adopted: P.."adopted:"..id, the set of the jids one migration moved in
-- (its id from partition_move_begin.lua, so a later migration back into this
-- partition is not taken for a replay), kept keepMs after the last move;
-- into: P.."schedule", P.."retry" or P.."dead"; score: its score there.
-- windowFirst: the first enqueue (ms) of the debounce window the job held
-- open, '' when none; windowTtl: that window's PTTL there.
-- claim, wait: 1 when the job held that claim in the old layout; deferred:
-- its due in `flow:deferred:NAME` there, '' when none; rate: starts to add to
-- its rate key's log (member: tagged with the old partition, so two logs'
-- fences never merge; at: start ms); those older than the period are left out.
-- Returns 1; 2 when a claim it held is held in this partition by another
-- job (the new deployment enqueued one meanwhile): the job is moved without it.
-- Replays: the jid is in `adopted` after the first run, so a second run (or a
-- migration run again after it stopped between this call and the removal at
-- the source) adds nothing, even when a tick moved the job on meanwhile; the
-- job and what it depended on are written together, once.
-- maxmemory: no flag: while Redis is full it is refused with REDIS_FULL before it writes anything,
-- before the job is deleted at the source; a migration stops there and resumes where it stopped.
-- @include lib/common/prefix-keys.lua
-- @include lib/debounce/close-window.lua
-- @include lib/flow/read.lua
local jid = ARGV[2]
local score = ARGV[3]
local job = ARGV[4]
local keepMs = ARGV[5]
local windowFirst = ARGV[6]
local windowTtl = tonumber(ARGV[7])
local claim = ARGV[8] == '1'
local wait = ARGV[9] == '1'
local deferred = ARGV[10]
local rateAt = 11

-- The window stays open while this very text waits in `schedule` (debounce.lua).
local function carry_window()
  local window = windowFirst ~= '' and debounce_window_of(job)
  if not window then return end
  redis.call('HSET', window, 'jid', jid, 'first', windowFirst, 'text', job)
  if windowTtl > 0 then redis.call('PEXPIRE', window, windowTtl) end
end

-- The job's claims and rate state, from its descriptor: the keys it names
-- are this partition's, as the new layout routed it by them.
local function carry()
  if not is_flow(job) then return 1 end
  local F = {}
  flow_read(F)
  local d, own = F.read(job)
  if not d then return 1 end
  local reply = 1
  for _, c in ipairs({ { 'claim', claim, d.claim }, { 'wait', wait, d.wait } }) do
    if c[2] and c[3] then
      local key = F.key(c[1], c[3])
      redis.call('SET', key, own, 'NX')
      if redis.call('GET', key) ~= own then reply = 2 end
    end
  end
  if d.rate then
    if deferred ~= '' then redis.call('ZADD', P .. 'flow:deferred:' .. d.name, deferred, own) end
    local log, since = F.key('rate', d.rate.key), now_ms() - d.rate.period
    local added = false
    for i = rateAt + 1, rateAt + 2 * tonumber(ARGV[rateAt]), 2 do
      if tonumber(ARGV[i + 1]) > since then
        redis.call('ZADD', log, ARGV[i + 1], ARGV[i])
        added = true
      end
    end
    if added then redis.call('PEXPIRE', log, d.rate.period) end
  end
  return reply
end

local reply = 1
if redis.call('SADD', KEYS[1], jid) == 1 then
  redis.call('ZADD', KEYS[2], score, job)
  carry_window()
  reply = carry()
end
redis.call('PEXPIRE', KEYS[1], keepMs)
return reply
