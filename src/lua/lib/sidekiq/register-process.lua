-- Ticks as Sidekiq processes (launcher.rb's heartbeat), for Sidekiq Web's
-- Busy page, ProcessSet and WorkSet. Used only when the caller passes the
-- keys (a Sidekiq-compatible prefix): KEYS[k] is the tick's heartbeat hash
-- P..IDENTITY, KEYS[k + 1] and KEYS[k + 2] its work hashes (IDENTITY:work
-- for Sidekiq >= 6.5, IDENTITY:workers before); `processes` lists the
-- identities. All three keys expire with the lease, so a dead tick vanishes
-- from Sidekiq's views when its lease does (Sidekiq prunes `processes`
-- members whose hash is gone; begin prunes a few too).
--
-- A beat section in ARGV, from index i: beat number, n, then n pairs of
-- (worker id, work JSON) — the jobs running when the tick sent the call.
-- Beats are numbered per tick: a beat applies only if its number is above
-- the one stored (`tickq_beat`), so a late or replayed beat, or an extend
-- overtaken by a step, never puts back an older picture; it then changes
-- nothing but TTLs. No beat re-creates a heartbeat that is gone.
-- @include lib/common/prefix-keys.lua

local SIDEKIQ_PRUNE = 10
local SIDEKIQ_CHUNK = 500

local function sidekiq_stamp(now)
  return string.format('%.3f', now / 1000)
end

-- Index just past the beat section that starts at i.
local function sidekiq_section_end(i)
  return i + 2 + 2 * tonumber(ARGV[i + 1])
end

-- begin: joins `processes` with `info` (JSON), busy 0, and drops a few
-- members whose heartbeat expired (ticks that died, Ruby processes gone).
local function sidekiq_register(k, now, lease_ms, info)
  local hb = KEYS[k]
  local processes = P .. 'processes'
  for _, member in ipairs(redis.call('SRANDMEMBER', processes, SIDEKIQ_PRUNE)) do
    if redis.call('EXISTS', P .. member) == 0 then redis.call('SREM', processes, member) end
  end
  redis.call('SADD', processes, string.sub(hb, #P + 1))
  redis.call('HSET', hb, 'info', info, 'busy', 0, 'beat', sidekiq_stamp(now), 'quiet', 'false',
    'rss', 0, 'rtt_us', 0, 'tickq_beat', 0)
  redis.call('PEXPIRE', hb, lease_ms)
end

-- step, extend, finish: applies the beat section at i if it is newer, and
-- extends the three keys to the lease. Only while the heartbeat exists.
local function sidekiq_beat(k, now, lease_ms, i)
  local hb = KEYS[k]
  if redis.call('EXISTS', hb) == 0 then return end
  local number, n = tonumber(ARGV[i]), tonumber(ARGV[i + 1])
  if number > (tonumber(redis.call('HGET', hb, 'tickq_beat')) or 0) then
    for w = k + 1, k + 2 do
      redis.call('DEL', KEYS[w])
      for first = i + 2, i + 1 + 2 * n, 2 * SIDEKIQ_CHUNK do
        redis.call('HSET', KEYS[w], unpack(ARGV, first, math.min(first + 2 * SIDEKIQ_CHUNK - 1, i + 1 + 2 * n)))
      end
    end
    redis.call('HSET', hb, 'busy', n, 'beat', sidekiq_stamp(now), 'tickq_beat', number)
  end
  for w = k, k + 2 do redis.call('PEXPIRE', KEYS[w], lease_ms) end
end

-- finish, with nothing left in the tick's lists: the process is gone.
local function sidekiq_leave(k)
  redis.call('SREM', P .. 'processes', string.sub(KEYS[k], #P + 1))
  redis.call('DEL', KEYS[k], KEYS[k + 1], KEYS[k + 2])
end
