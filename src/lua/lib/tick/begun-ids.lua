-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- The ticks that began, so a late replay of begin cannot bring a dead tick
-- back (begin.lua) and a fan-out slot knows its tick began (parallel.lua).
-- Bounded in bytes whatever the tick rate: an id is kept as an 8-byte
-- fingerprint (bytes 2-9 of its SHA-1) in one of BEGUN_BUCKETS lists
-- `begun:N` (N from its SHA-1's first byte); each list keeps the newest
-- BEGUN_BUCKET_IDS ids that fell in it and expires BEGUN_MS after its last
-- push. So the guard holds at most 65,536 ids of 10 bytes (a list entry),
-- about 0.8 MB as Redis counts it, and an id is remembered for an hour or
-- until 512 later ids fell in its bucket: the next 65,000 ticks on average,
-- fewer than 50,000 with odds under 1e-8. Lists, searched by LPOS in Redis,
-- so a begin copies no bucket into Lua. Two ids share a fingerprint with odds
-- of 65,536 / 2^64: such a fresh tick would be taken for a replay and do nothing.
-- Needs prefix-keys.lua.
-- @include lib/common/prefix-keys.lua

local BEGUN_MS = 3600 * 1000
local BEGUN_BUCKETS = 128
local BEGUN_BUCKET_IDS = 512

-- The bucket key and the fingerprint of a tick id.
local function begun_place(tick)
  local h = redis.sha1hex(tick)
  local bucket = tonumber(string.sub(h, 1, 2), 16) % BEGUN_BUCKETS
  local fingerprint = struct.pack('>I4I4', tonumber(string.sub(h, 3, 10), 16), tonumber(string.sub(h, 11, 18), 16))
  return P .. 'begun:' .. bucket, fingerprint
end

local function tick_begun(tick)
  local key, fingerprint = begun_place(tick)
  return redis.call('LPOS', key, fingerprint) ~= false
end

-- Notes that `tick` began; false when it had already (a replay), and nothing is written then.
local function note_begun(tick)
  local key, fingerprint = begun_place(tick)
  if redis.call('LPOS', key, fingerprint) then return false end
  redis.call('LPUSH', key, fingerprint)
  redis.call('LTRIM', key, 0, BEGUN_BUCKET_IDS - 1)
  redis.call('PEXPIRE', key, BEGUN_MS)
  return true
end
