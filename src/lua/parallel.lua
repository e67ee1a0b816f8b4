#!lua flags=allow-oom
-- parallel: lets ticks start only while fewer than MAX are live, counted
-- from the live-tick registry, not guessed: a tick is live while it is
-- registered in `ticks` and its lease `tick:ID` exists. A slot granted to a
-- tick that has not begun yet (a fan-out request on its way) is reserved
-- in `ticks:reserved` until it begins or the reservation expires; once its
-- id is noted as begun (lib/tick/begun-ids.lua) the registry speaks for it. Ids are granted
-- in order; the first refused ends the grant.
-- KEYS: ticks reserved
-- ARGV: prefix maxLive reserveMs ids[]
-- Returns: (granted others)
-- ticks: P.."ticks"; reserved: P.."ticks:reserved" (zset: id → ms it expires).
-- maxLive: max live ticks; ids: the tick ids asking for a slot.
-- granted: how many of the ids (the first ones) hold a slot; others: how many
-- other ticks (not among the ids) are live or reserved.
-- Replays: an id granted by the first run is found reserved (or live) and
-- granted again, taking no second slot; an id that already began is never
-- reserved again (a tick begins once), so a late replay grants nothing new.
-- A resend carries the same counted ids as the first run.
-- maxmemory: runs (allow-oom): a tick must be able to start; it adds at most maxLive reservations
-- (15 s each).
-- @include lib/common/prefix-keys.lua
-- @include lib/tick/begun-ids.lua
-- @include lib/common/counted-args.lua

local registry, reserved = KEYS[1], KEYS[2]
local maxLive = tonumber(ARGV[2])
local reserveMs = tonumber(ARGV[3])
local idsAt = 4

local ids = counted_args(idsAt)
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', reserved, '-inf', now)

local live, is_live = 0, {}
for _, id in ipairs(redis.call('HKEYS', registry)) do
  if redis.call('EXISTS', P .. 'tick:' .. id) == 1 then
    live = live + 1
    is_live[id] = true
  end
end
-- Also the sorted set `begun` of older versions, for a tick an older deployment began (a rolling deploy).
local legacy_begun = P .. 'begun'
local function began(id)
  return tick_begun(id) or redis.call('ZSCORE', legacy_begun, id) ~= false
end
for _, id in ipairs(redis.call('ZRANGE', reserved, 0, -1)) do
  if not is_live[id] then
    if began(id) then
      redis.call('ZREM', reserved, id) -- it began and is gone: finished, or dead
    else
      live = live + 1
      is_live[id] = true
    end
  end
end

local others = live
for _, id in ipairs(ids) do
  if is_live[id] then others = others - 1 end
end
local granted = 0
for _, id in ipairs(ids) do
  if not is_live[id] then
    if live >= maxLive or began(id) then break end
    redis.call('ZADD', reserved, now + reserveMs, id)
    live = live + 1
    is_live[id] = true
  end
  granted = granted + 1
end
if redis.call('EXISTS', reserved) == 1 then redis.call('PEXPIRE', reserved, reserveMs) end
return { granted, others }
