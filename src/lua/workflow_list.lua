-- workflow_list: a page of workflow runs from an index (all runs, or one
-- status), newest first, optionally of one workflow name.
-- KEYS: index
-- ARGV: prefix name offset limit
-- Returns: (next runs[](id name status created updated))
-- index: P..'wf:all' or P..'wf:s:'..status. name: '' for every workflow.
-- offset: the position in the index to go on from. next: where the next
-- page starts, -1 at the end. At most 1,000 entries are read per call, so a
-- rare name can answer a short page with a next offset.
-- Replays: a read.
-- maxmemory: reads only: answers as ever while Redis is full.
-- @include lib/workflows/run-state.lua
-- @include lib/workflows/index-page.lua

local name = ARGV[2]
local offset = tonumber(ARGV[3])
local limit = tonumber(ARGV[4])
return index_page(KEYS[1], offset, limit, function(id)
  local f = redis.call('HMGET', wf_key('run', id), 'name', 'status', 'created', 'updated')
  if f[1] and (name == '' or f[1] == name) then return { id, f[1], f[2], f[3], f[4] } end
end)
