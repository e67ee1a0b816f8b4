-- workflow_start_bulk: creates many workflow runs in one call, all or none:
-- when an id in the call is held by a run of another workflow (or named
-- twice with two workflows), nothing is written; else every run whose id
-- is free is created, due at once, as workflow_start.lua creates one.
-- KEYS: all
-- ARGV: prefix runs[](id name input version)
-- Returns: []
-- all: P..'wf:all' (the index every run enters; named so a cluster routes the call).
-- runs: each run's id, workflow name, input JSON (stored as sent) and version.
-- Returns, per run in order, the name of the workflow its id holds: the
-- caller's own name for each run unless one conflicts, and then the call
-- wrote nothing (the caller refuses the whole call).
-- Replays: idempotent by id: a rerun finds every run it created and changes nothing;
-- a run named twice in the call is created once.
-- maxmemory: no flag: while Redis is full it is refused with REDIS_FULL at its first write,
-- before it writes anything (every check is a read, done before any write), as workflow_start.
-- @include lib/common/prefix-keys.lua
-- @include lib/workflows/run-state.lua

local runsAt = 2

local holders, fresh, conflict = {}, {}, false
local named = {}
for k = 1, tonumber(ARGV[runsAt]) do
  local i = runsAt + 1 + 4 * (k - 1)
  local id, name = ARGV[i], ARGV[i + 1]
  local holder = named[id]
  if not holder then
    holder = redis.call('HGET', wf_key('run', id), 'name')
    if not holder then
      holder = name
      fresh[#fresh + 1] = i
    end
    named[id] = holder
  end
  holders[k] = holder
  if holder ~= name then conflict = true end
end
if conflict then return holders end
if #fresh == 0 then return holders end
local now = now_ms()
local eseq = redis.call('GET', wf_key('eseq')) or '0'
local all, due = wf_key('all'), wf_key('due')
for _, i in ipairs(fresh) do
  local id = ARGV[i]
  redis.call('HSET', wf_key('run', id), 'name', ARGV[i + 1], 'input', ARGV[i + 2], 'created', now, 'ikey', '2',
    'eseq', eseq, 'version', ARGV[i + 3])
  wf_set_status(id, 'running', now)
  redis.call('ZADD', all, now, id)
  redis.call('ZADD', due, now, id)
end
return holders
