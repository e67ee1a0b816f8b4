-- Creates workflow runs, all or none (workflow_start_bulk.lua, and begin.lua for
-- tq.workflows.startAndWait): when an id is held by a run of another workflow (or
-- named twice with two workflows), nothing is written; else every run whose id is
-- free is created, due at once, as workflow_start.lua creates one.
-- `now`: the runs' created and due time. Reads ARGV from `at`: a count, then per run its id, workflow name, input JSON
-- (stored as sent) and version. Returns, per run in order, the name of the
-- workflow its id holds (the caller's own name for each run unless one conflicts,
-- and then nothing was written). Idempotent by id: a rerun creates nothing again.
-- Every check is a read, done before any write.
-- @include lib/workflows/run-state.lua

local function wf_start_runs(at, now)
  local holders, fresh, conflict = {}, {}, false
  local named = {}
  for k = 1, tonumber(ARGV[at]) do
    local i = at + 1 + 4 * (k - 1)
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
  if conflict or #fresh == 0 then return holders end
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
end
