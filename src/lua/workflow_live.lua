-- workflow_live: a page of live workflow runs (running, sleeping, waiting)
-- with everything a replay of their history needs, for tq.workflows.check.
-- KEYS: index
-- ARGV: prefix name offset limit
-- Returns: (next runs[](id name version input steps[] parks[]))
-- index: P..'wf:all'. name: '' for every workflow. offset: the position in
-- the index (newest first) to go on from. next: where the next page starts,
-- -1 at the end. version: the run's, '1' for a run stored before versions.
-- steps, parks: HGETALL of the run's step records and parked steps. At most
-- 1,000 index entries are read, and runs whose records pass 1 MiB together
-- end the page early (one run at least), so a page can be short with a next.
-- Replays: a read.
-- maxmemory: reads only: answers as ever while Redis is full.
-- @include lib/workflows/run-state.lua
-- @include lib/workflows/index-page.lua

local name = ARGV[2]
local offset = tonumber(ARGV[3])
local limit = tonumber(ARGV[4])
local PAGE_BYTES = 1024 * 1024
local bytes = 0
return index_page(KEYS[1], offset, limit, function(id)
  local f = redis.call('HMGET', wf_key('run', id), 'name', 'status', 'version', 'input')
  if not (f[1] and f[2] and not WF_TERMINAL[f[2]] and (name == '' or f[1] == name)) then return nil end
  local steps = redis.call('HGETALL', wf_key('steps', id))
  for s = 2, #steps, 2 do bytes = bytes + #steps[s] end
  local row = { id, f[1], f[3] or '1', f[4] or 'null', steps, redis.call('HGETALL', wf_key('park', id)) }
  return row, bytes >= PAGE_BYTES
end)
