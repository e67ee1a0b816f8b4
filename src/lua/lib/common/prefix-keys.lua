-- @eager: every script uses P and now_ms at once (scripts/lua-lazy.mjs).
-- Shared helpers for every entry script. ARGV[1] is always the key prefix:
-- keys built here stay under it, so a prefix with a hash tag ("{jobs}:")
-- keeps every key in one Cluster slot.
local P = ARGV[1]

-- Time comes from Redis, never from the caller's clock. A test prefix
-- (tickq/testing) holds a virtual clock's offset in P.."testclock", added
-- here, the one place wall time is read, so due times, slots, windows and
-- retention all follow clock.advance together. A production tickq refuses
-- such a prefix (begin.lua's reply carries the mark). Fences stay on TIME.
local function now_ms()
  local t = redis.call('TIME')
  local real = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  return real + (tonumber(redis.call('GET', P .. 'testclock')) or 0)
end

-- YYYY-MM-DD (UTC) of an epoch second; Redis' Lua has no os.date.
-- Civil-from-days, after Howard Hinnant's public-domain algorithm.
local function day_of(sec)
  local z = math.floor(sec / 86400) + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local d = doy - math.floor((153 * mp + 2) / 5) + 1
  local m = mp < 10 and mp + 3 or mp - 9
  local y = yoe + era * 400 + (m <= 2 and 1 or 0)
  return string.format('%04d-%02d-%02d', y, m, d)
end

local function inproc_key(tick, queue)
  return P .. 'inproc:' .. tick .. ':' .. queue
end

-- The queues of a tick registration: "<started ms> <lease ms> <queue> …".
-- Plain words, never JSON: a registration must always be readable, or the
-- tick's inproc lists would be orphaned. (Queue names hold no whitespace.)
local function registered_queues(registration)
  local queues, k = {}, 0
  for word in string.gmatch(registration, '%S+') do
    k = k + 1
    if k > 2 then queues[#queues + 1] = word end
  end
  return queues
end

-- Fences (ctx.fence) come from a counter that Redis may forget (a failover
-- to a replica that missed writes, a restart from an older snapshot, a
-- wipe), so a fence is also never below Redis' time in microseconds: a
-- counter rolled back starts again above every fence handed out before,
-- unless Redis' clock went back or the counter had run ahead of it (over a
-- million fences a second). 2^53 µs, the end of safe integers, is the year
-- 2255. Written as digits: tostring keeps only 14 significant digits.
-- '%d' (a C long) writes an integer below 2^63 as '%.0f' does, without
-- the multi-precision float formatting '%.0f' pays for each fence.
local function fence_text(fence)
  return string.format('%d', fence)
end

-- The last fence counter `key` handed out, or a floor just below Redis' time.
local function last_fence_of(key)
  local t = redis.call('TIME')
  return math.max(tonumber(redis.call('GET', key)) or 0, t[1] * 1000000 + t[2] - 1)
end

-- Fences up to `last` are handed out.
local function fences_taken(key, last)
  redis.call('SET', key, fence_text(last))
end
