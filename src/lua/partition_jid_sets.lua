-- partition_jid_sets: the sets of remembered jids of the shape before one
-- `jids` set (`jids:WINDOW:BUCKET`, which enqueue.lua still reads) in one
-- partition of the old layout, one SCAN page a call, for migratePartitions to
-- carry their jids (partition_jids_read.lua). Reads only.
-- KEYS: ids
-- ARGV: prefix cursor
-- Returns: (cursor sets[])
-- ids: P.."jids" (it names the partition's slot); cursor: SCAN's, "0" to
-- start, "0" in the reply once the scan is done; sets: the keys of this page
-- (SCAN may return a key on two pages: reading a set twice adds nothing).
-- Replays: it writes nothing, so a second run answers what Redis holds then.
-- maxmemory: reads only: answers as ever while Redis is full.
-- @include lib/common/prefix-keys.lua
local cursor = ARGV[2]
-- MATCH is a glob: the prefix's own glob characters match only themselves.
local pattern = P:gsub('[%*%?%[%]\\]', '\\%0') .. 'jids:*'
local page = redis.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)
local sets = {}
for _, key in ipairs(page[2]) do
  if string.match(string.sub(key, #P + 1), '^jids:%d+:%-?%d+$') then sets[#sets + 1] = key end
end
return {page[1], sets}
