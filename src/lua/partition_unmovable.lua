-- partition_unmovable: what a migration does not move, in one partition of the
-- layout it would move from (migratePartitions reads it before its mark, and
-- refuses to strand it): ordered ids waiting, backing off, running or dead,
-- workflow runs not ended, and flow jobs parked on a busy key (each goes back
-- to its queue only when a job of its key acks there). Ordered names live in
-- no registry in Redis, so their keys are found with SCAN, one page a call;
-- runs and parked jobs are counted on the first page. Reads only.
-- KEYS: counts waiting
-- ARGV: prefix cursor
-- Returns: (cursor found[key size] runs parked)
-- counts: P.."wf:counts", the runs per "STATUS:NAME" (lib/workflows/run-state.lua);
-- waiting: P.."flow:waiting", the parked jobs per job name (lib/flow/flow.lua).
-- cursor: SCAN's, "0" to start; the reply's is "0" once the scan is done. found:
-- each ordered key of this page that holds ids (`o:NAME:ready`, `later`,
-- `dead`: their sizes; `o:NAME:running`: its count); SCAN may return a key on
-- two pages, so the caller counts each key once. runs: running, sleeping and
-- waiting runs; parked: jobs parked; both on the first page only (0 on the others).
-- Replays: it writes nothing, so a second run answers what Redis holds then.
-- maxmemory: reads only: answers as ever while Redis is full.
-- @include lib/common/prefix-keys.lua
local cursor = ARGV[2]
-- MATCH is a glob: the prefix's own glob characters match only themselves.
local pattern = P:gsub('[%*%?%[%]\\]', '\\%0') .. 'o:*'
local page = redis.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)
local found = {}
for _, key in ipairs(page[2]) do
  -- Names hold no ':' (lib/ordered/state.lua), ids may: `o:NAME:p:ID` of an id "ready" is not a ready set.
  local what = string.match(string.sub(key, #P + 1), '^o:[^:]+:([^:]+)$')
  local kind = redis.call('TYPE', key)['ok']
  local size = 0
  if (what == 'ready' or what == 'later' or what == 'dead') and kind == 'zset' then
    size = redis.call('ZCARD', key)
  elseif what == 'running' and kind == 'string' then
    size = tonumber(redis.call('GET', key)) or 0
  end
  if size > 0 then
    table.insert(found, key)
    table.insert(found, size)
  end
end
local runs, parked = 0, 0
if cursor == '0' then
  for _, count in ipairs(redis.call('HVALS', KEYS[2])) do parked = parked + math.max(0, tonumber(count) or 0) end
  local counts = redis.call('HGETALL', KEYS[1])
  for i = 1, #counts, 2 do
    local status = string.match(counts[i], '^([a-z]+):')
    if status == 'running' or status == 'sleeping' or status == 'waiting' then runs = runs + tonumber(counts[i + 1]) end
  end
end
return {page[1], found, runs, parked}
