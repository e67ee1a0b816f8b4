-- stats: Sidekiq's counters and sizes, read in one round trip.
-- KEYS: queues ticks
-- ARGV: prefix flowNames[] orderedNames[] workflowNames[] storedWorkflows?
-- Returns: (processed failed deadEvicted scheduled retry dead ticks inflight queues[name size latencyMs]
--   policy schedules nowMs heartbeat[field ms] paused[] due flow[][] ordered[][] expired running waiting
--   workflows[][] cancelled usedMemory maxMemory unstartable[name record] budgets[queue record]
--   unrunnable[version record] workflowNames[])
-- flowNames: job names (flow sizes, lib/flow/stats.lua); orderedNames:
-- ordered names (lib/ordered/count-sizes.lua). queues: sizes and how long each
-- queue's oldest waiting job has waited (lib/queues/measure-latency.lua); heartbeat: the
-- heartbeat hash's fields; due: scheduled and retry jobs already due; flow and
-- ordered: sizes per name, in the order asked; expired: jobs recorded as
-- expired since the prefix was first used (lib/expiry/expire-fetched.lua);
-- running and waiting: the jobs live ticks' handlers run and the jobs they
-- fetched and have not started, as each tick's last step or lease extension
-- reported them (lib/tick/run-solo.lua, extend.lua); workflows: runs per
-- workflow name and status (lib/workflows/count-runs.lua), for the names asked or,
-- with storedWorkflows, for every name with stored counts (workflowNames: those
-- names, in the order of `workflows`); cancelled: jobs cancelled, ever
-- (lib/cancel/record-cancelled.lua); usedMemory and maxMemory: Redis' memory as
-- counted against its maxmemory, and that limit (0: none), for the warning when full.
-- (lib/cancel/record-cancelled.lua); unstartable and budgets: what ticks could not
-- start and the budgets they ran with (lib/tick/record-unstartable.lua);
-- unrunnable: workflow versions a tick had no code for (lib/workflows/commit-runs.lua).
-- One call answers everything stats() and a dashboard refresh show.
-- Replays: reads only (flow's sizes prune deferral records already due,
-- which no reader counts).
-- maxmemory: reads only (flow's sizes prune due deferral records): answers as ever while Redis is
-- full, with Redis' memory against its limit for the warning.
-- @include lib/common/prefix-keys.lua
-- @include lib/queues/measure-latency.lua
-- @include lib/order/count-queued.lua
-- @include lib/common/memory-state.lua
-- @include lib/flow/stats.lua
-- @include lib/ordered/count-sizes.lua
-- @include lib/workflows/count-runs.lua

local flowNamesAt = 2
local orderedNamesAt = ARGV[flowNamesAt] and flowNamesAt + 1 + tonumber(ARGV[flowNamesAt]) or flowNamesAt
local workflowNamesAt = ARGV[orderedNamesAt] and orderedNamesAt + 1 + tonumber(ARGV[orderedNamesAt]) or nil
local storedWorkflows = workflowNamesAt and ARGV[workflowNamesAt + 1 + tonumber(ARGV[workflowNamesAt])] == '1'

local function counter(name)
  return tonumber(redis.call('GET', P .. 'stat:' .. name)) or 0
end

local now = now_ms()
local sizes = {}
for _, queue in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  sizes[#sizes + 1] = queue
  sizes[#sizes + 1] = queued_size(queue)
  sizes[#sizes + 1] = queue_latency_ms(queue, now)
end

local registry = redis.call('HGETALL', KEYS[2])
local inflight, running, waiting = 0, 0, 0
for j = 1, #registry, 2 do
  for _, queue in ipairs(registered_queues(registry[j + 1])) do
    inflight = inflight + redis.call('LLEN', inproc_key(registry[j], queue))
  end
  local r, w = string.match(redis.call('HGET', P .. 'tick:' .. registry[j], 'load') or '', '^(%d+) (%d+)$')
  if r then running, waiting = running + tonumber(r), waiting + tonumber(w) end
end

local flow = {}
if ARGV[flowNamesAt] then flow = flow_sizes(flowNamesAt, now) end
local ordered = {}
if ARGV[orderedNamesAt] then ordered = ordered_sizes(orderedNamesAt) end
local workflow_names_read = {}
if ARGV[workflowNamesAt] then workflow_names_read = workflow_names(workflowNamesAt, storedWorkflows) end
local workflows = workflow_counts(workflow_names_read)
local due = redis.call('ZCOUNT', P .. 'schedule', '-inf', now / 1000) + redis.call('ZCOUNT', P .. 'retry', '-inf', now / 1000)

local memory = memory_info()
local used_memory, max_memory = memory_use(memory)
return {
  counter('processed'), counter('failed'), counter('dead_evicted'),
  redis.call('ZCARD', P .. 'schedule'), redis.call('ZCARD', P .. 'retry'), redis.call('ZCARD', P .. 'dead'),
  #registry / 2, inflight, sizes,
  string.match(memory, 'maxmemory_policy:(%S+)') or '',
  redis.call('HLEN', P .. 'schedules:fp'),
  now, redis.call('HGETALL', P .. 'heartbeat'), redis.call('SMEMBERS', P .. 'paused'), due,
  flow, ordered, counter('expired'), running, waiting, workflows, counter('cancelled'), used_memory, max_memory,
  redis.call('HGETALL', P .. 'unstartable'), redis.call('HGETALL', P .. 'budgets'),
  redis.call('HGETALL', P .. 'wf:unrunnable'), workflow_names_read,
}
