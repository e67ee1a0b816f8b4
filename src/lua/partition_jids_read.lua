-- partition_jids_read: a page of the caller's jids one partition of the old
-- layout remembers (lib: enqueue.lua), for migratePartitions to carry into
-- every partition of the new one (partition_jids_adopt.lua): the `jids`
-- sorted set (score: when a jid may be forgotten), or one set of the shape
-- before it, `jids:WINDOW:BUCKET` (remembered while enqueue still reads its
-- bucket, two windows, and while it lives). Reads only.
-- KEYS: ids
-- ARGV: prefix cursor count
-- Returns: (cursor jids[jid untilMs])
-- ids: P.."jids" or P.."jids:WINDOW:BUCKET"; cursor: ZSCAN's or SSCAN's,
-- "0" to start; count: the page's size hint. The reply's cursor is "0" once
-- the set is read; untilMs: when the new layout may forget the jid; jids
-- already forgotten are left out.
-- Replays: it writes nothing, so a second run answers what Redis holds then.
-- maxmemory: reads only: answers as ever while Redis is full.
-- @include lib/common/prefix-keys.lua
local cursor = ARGV[2]
local count = ARGV[3]
local now = now_ms()
local found = {}
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'zset' then
  local page = redis.call('ZSCAN', KEYS[1], cursor, 'COUNT', count)
  local items = page[2]
  for i = 1, #items, 2 do
    if tonumber(items[i + 1]) > now then
      found[#found + 1] = items[i]
      found[#found + 1] = items[i + 1]
    end
  end
  return {page[1], found}
end
if kind ~= 'set' then return {'0', found} end
-- A bucket's jids are read by enqueue during its window and the next, and
-- the set expires two windows after its last add.
local window, bucket = string.match(string.sub(KEYS[1], #P + 1), '^jids:(%d+):(%-?%d+)$')
local ttl = redis.call('PTTL', KEYS[1])
local until_ms = window and (tonumber(bucket) + 2) * tonumber(window) or now
if ttl > 0 then until_ms = math.min(until_ms, now + ttl) end
local page = redis.call('SSCAN', KEYS[1], cursor, 'COUNT', count)
if until_ms > now then
  local text = string.format('%.0f', until_ms)
  for _, jid in ipairs(page[2]) do
    found[#found + 1] = jid
    found[#found + 1] = text
  end
end
return {page[1], found}
