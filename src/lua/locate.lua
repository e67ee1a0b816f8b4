-- locate: looks for one job by jid, a bounded stretch of Redis per call.
-- KEYS: queues ticks
-- ARGV: prefix jid budget stage position
-- Returns: found(state queue job where tick tickAlive parkedOn?) | more(stage position) | none
-- jid: as written inside a JSON string; budget: entries to look at, at most;
-- stage: the stage to resume ('' first); position: in that stage (a ZSCAN
-- cursor, or a list index). where: score, or distance from the queue's head
-- (-1 for a queued job with a priority or a group: lib/order/read-order.lua);
-- parkedOn: for a flow job parked on a busy key, its park list 'flow:park:KEY'.
-- Replays: reads only.
-- maxmemory: reads only: answers as ever while Redis is full.
-- @include lib/common/prefix-keys.lua
-- @include lib/common/edit-job-text.lua
-- @include lib/admin/match-jobs.lua

-- It looks everywhere a job can wait, a bounded stretch at a time, so a
-- Redis holding a million jobs is never blocked
-- for long: the caller resends with the stage and position it is given
-- until the job is found or every stage was looked through.
-- Stages, in order: running (the in-process lists of registered ticks),
-- schedule, retry, dead (ZSCAN with a MATCH on the jid, then a check of
-- the field), each queue by name (LRANGE windows from the tail, then its
-- priority and group sets, by ZSCAN as the sets above), each park
-- list of a busy flow key (queued jobs that wait for a slot),
-- running again: a job fetched while its queue was being read is found
-- there, and the jobs kept as history: succeeded, cancelled, expired.

local jid = ARGV[2]
local budget = tonumber(ARGV[3])
local stage = ARGV[4]
local position = ARGV[5]

local CHUNK = 500

local stages = { 'running', 'schedule', 'retry', 'dead' }
local names = redis.call('SMEMBERS', KEYS[1])
table.sort(names)
for _, queue in ipairs(names) do
  stages[#stages + 1] = 'queue:' .. queue
  -- Its jobs with a priority or a group (lib/order/read-order.lua) wait in sorted sets.
  if redis.call('EXISTS', P .. 'prio:' .. queue) == 1 then stages[#stages + 1] = 'prio:' .. queue end
  local groups = redis.call('LRANGE', P .. 'groups:' .. queue, 0, -1)
  table.sort(groups)
  for _, group in ipairs(groups) do
    if group ~= '' then stages[#stages + 1] = 'group:' .. queue .. ' ' .. group end
  end
end
-- Flow jobs parked on a busy key (lib/flow/flow.lua) wait too, in a list per key.
local parked = redis.call('SMEMBERS', P .. 'flow:parked')
table.sort(parked)
for _, key in ipairs(parked) do stages[#stages + 1] = 'flow:park:' .. key end
stages[#stages + 1] = 'recheck'
-- Succeeded jobs kept as history (lib/results/keep-results.lua) last: a job
-- that finishes while the others are looked through is found there.
stages[#stages + 1] = 'succeeded'
stages[#stages + 1] = 'cancelled'
stages[#stages + 1] = 'expired'

-- Where to resume: the stage named, or for a queue gone from the set since,
-- the next queue by name.
local at = 1
if stage ~= '' then
  at = nil
  for k, candidate in ipairs(stages) do
    if candidate == stage or (at == nil and string.sub(stage, 1, 6) == 'queue:' and string.sub(candidate, 1, 6) == 'queue:' and candidate > stage) then
      at = k
      if candidate ~= stage then position = '0' end
      break
    end
  end
  -- A priority or group set emptied since: on with the stages after its queue's list.
  local owner = string.match(stage, '^prio:(%S+)$') or string.match(stage, '^group:(%S+) ')
  if not at and owner then
    for k, stage in ipairs(stages) do
      if stage == 'queue:' .. owner then
        at, position = k + 1, '0'
        break
      end
    end
  end
  if not at then
    at, position = #stages, '0'
  end
end

local examined = 0

local function running()
  local registry = redis.call('HGETALL', KEYS[2])
  for j = 1, #registry, 2 do
    local tick = registry[j]
    for _, queue in ipairs(registered_queues(registry[j + 1])) do
      local jobs = redis.call('LRANGE', inproc_key(tick, queue), 0, -1)
      examined = examined + #jobs
      for k = 1, #jobs do
        if has_jid(jobs[k], jid) then
          return { 'found', 'running', queue, jobs[k], #jobs - k, tick, redis.call('EXISTS', P .. 'tick:' .. tick) }
        end
      end
    end
  end
end

local STATE = {
  schedule = 'scheduled', retry = 'retry', dead = 'dead',
  succeeded = 'succeeded', cancelled = 'cancelled', expired = 'expired',
}

-- Each stage answers the job if found, and whether it is done.
local function sorted_set(stage, queue)
  local pattern = glob_around('"' .. jid .. '"')
  repeat
    local page = redis.call('ZSCAN', P .. stage, position, 'MATCH', pattern, 'COUNT', CHUNK)
    position = page[1]
    examined = examined + CHUNK
    local hits = page[2]
    for k = 1, #hits, 2 do
      if has_jid(hits[k], jid) then
        -- A queued job of a priority or group set has no distance from the head: -1.
        if queue then return { 'found', 'queued', queue, hits[k], -1, '', 0 } end
        return { 'found', STATE[stage], queue_of(hits[k]) or '', hits[k], hits[k + 1], '', 0 }
      end
    end
  until position == '0' or examined >= budget
  return nil, position == '0'
end

local function queue(stage)
  local key = P .. stage
  local len = redis.call('LLEN', key)
  local from = tonumber(position)
  while from < len and examined < budget do
    local jobs = redis.call('LRANGE', key, from, from + CHUNK - 1)
    if #jobs == 0 then break end
    examined = examined + #jobs
    for k = 1, #jobs do
      if has_jid(jobs[k], jid) then
        if string.sub(stage, 1, 6) == 'queue:' then
          return { 'found', 'queued', string.sub(stage, 7), jobs[k], len - from - k, '', 0 }
        end
        return { 'found', 'queued', queue_of(jobs[k]) or '', jobs[k], len - from - k, '', 0, stage }
      end
    end
    from = from + #jobs
  end
  position = tostring(from)
  return nil, from >= len
end

while at <= #stages do
  local stage = stages[at]
  local found, done
  if stage == 'running' or stage == 'recheck' then
    found, done = running(), true
  elseif STATE[stage] then
    found, done = sorted_set(stage)
  elseif string.sub(stage, 1, 5) == 'prio:' then
    found, done = sorted_set(stage, string.sub(stage, 6))
  elseif string.sub(stage, 1, 6) == 'group:' then
    found, done = sorted_set(stage, string.match(stage, '^group:(%S+) '))
  else
    found, done = queue(stage)
  end
  if found then return found end
  if done then at, position = at + 1, '0' end
  if examined >= budget and at <= #stages then return { 'more', stages[at], position } end
end
return { 'none' }
