-- workflow_steps: the stored records of steps whose results a run's claim
-- did not carry (lib/workflows/carry-steps.lua), read when the run's replay
-- reaches them; the execution asks for at most a bounded size at a time.
-- KEYS: ticks lease
-- ARGV: prefix tickId id fence names[]
-- Returns: (held records[])
-- held: 1 while the lease lives and the run is this tick's with this fence;
-- else 0 and no record (the execution is stale: it stops, committing nothing).
-- records: each named step's record JSON, in order ('' for a step with none).
-- Replays: a read.
-- maxmemory: reads only: answers as ever while Redis is full.
-- @include lib/common/counted-args.lua
-- @include lib/workflows/run-state.lua

local tickId = ARGV[2]
local id = ARGV[3]
local fence = ARGV[4]
local namesAt = 5

local run = redis.call('HMGET', wf_key('run', id), 'owner', 'fence', 'status')
if redis.call('EXISTS', KEYS[2]) == 0 or run[1] ~= tickId or run[2] ~= fence or run[3] ~= 'running' then
  return { 0, {} }
end
local names = counted_args(namesAt)
if #names == 0 then return { 1, {} } end
local records = redis.call('HMGET', wf_key('steps', id), unpack(names))
for k = 1, #names do records[k] = records[k] or '' end
return { 1, records }
