-- test_clock: the virtual clock of a test prefix (tickq/testing). `claim` takes a
-- prefix for a test tickq, `advance` moves its clock, `clear` deletes the prefix's keys.
-- KEYS: clock
-- ARGV: prefix op offsetMs
-- Returns: (state detail nowMs)
-- clock: P.."testclock", the offset (ms) now_ms() adds (lib/common/prefix-keys.lua); its
-- presence marks a test prefix, which a production tickq refuses (begin.lua's reply).
-- op 'claim': a prefix already marked answers ('test', offset); one holding any other key
-- under P is a deployment's, refused as ('taken', that key); else it is marked at offset 0
-- ('claimed', '0'). op 'advance': the clock is set to offsetMs, and every key under P
-- with a TTL, but a tick's lease (P.."tick:"..ID, which stays on real time), loses the
-- difference (a key whose TTL runs out is deleted), so what Redis expires on its own
-- clock (kept results, rate logs, id windows) follows the virtual one: ('advanced',
-- offset); an unmarked prefix answers ('absent', ''). op 'clear': every key under a
-- marked P is deleted: ('cleared', count). nowMs: the prefix's time after the call
-- (virtual: Redis' TIME plus the offset).
-- Scans walk the whole keyspace of the node: a test's Redis, never a production one.
-- Replays: claim marks once (the replay finds its own mark and answers 'test');
-- advance takes the target offset, not a step, so a replay finds it reached and moves
-- nothing; clear deletes what is left, which is nothing the second time.
-- maxmemory: no flag: while Redis is full a claim or advance is refused with REDIS_FULL
-- before it writes; clear only deletes.
-- @include lib/common/prefix-keys.lua
local op = ARGV[2]
local offsetMs = ARGV[3]
local pattern = string.gsub(P, '[%*%?%[%]\\]', '\\%0') .. '*'

-- Calls visit(key) for every key under P; stops early when visit answers true.
local function each_key(visit)
  local cursor = '0'
  repeat
    local page = redis.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)
    cursor = page[1]
    for _, key in ipairs(page[2]) do
      if visit(key) then return end
    end
  until cursor == '0'
end

local current = redis.call('GET', KEYS[1])
if op == 'claim' then
  if current then return { 'test', current, now_ms() } end
  local found = ''
  each_key(function(key)
    found = key
    return true
  end)
  if found ~= '' then return { 'taken', found, now_ms() } end
  redis.call('SET', KEYS[1], '0')
  return { 'claimed', '0', now_ms() }
end
if not current then return { 'absent', '', now_ms() } end
if op == 'clear' then
  local count = 0
  each_key(function(key)
    redis.call('UNLINK', key)
    count = count + 1
  end)
  return { 'cleared', tostring(count), now_ms() }
end
local by = tonumber(offsetMs) - tonumber(current)
if by <= 0 then return { 'advanced', current, now_ms() } end
redis.call('SET', KEYS[1], offsetMs)
local lease = P .. 'tick:'
each_key(function(key)
  if string.sub(key, 1, #lease) == lease then return end
  local ttl = redis.call('PTTL', key)
  if ttl <= 0 then return end
  if ttl <= by then redis.call('DEL', key) else redis.call('PEXPIRE', key, ttl - by) end
end)
return { 'advanced', offsetMs, now_ms() }
