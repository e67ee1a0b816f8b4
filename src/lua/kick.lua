#!lua flags=allow-oom
-- kick: caps the ticks that enqueues start at once ("kicked" ticks, at most
-- MAX per prefix) and hands work over between them. Each running kick holds
-- a slot: a token in `kicks`, scored with the time its current tick began.
-- A refused kick is written down in `kicks:waiting`; a holder whose tick
-- drained asks `done`, and ticks again if a kick was refused since its tick
-- began, so no enqueue is left waiting for the cron. Entries older than the
-- TTL (a holder that was killed) are dropped by the next call.
-- KEYS: kicks waiting
-- ARGV: prefix op token arg ttlMs
-- Returns: number
-- kicks: zset token → ms its tick began; waiting: zset refused token → ms refused.
-- op: "take" | "done" | "free"; arg: take: max slots; done: the next token; free:
-- unused; ttlMs: the longest a holder goes between two calls.
-- Returns, take: 1 when the slot is taken, 0 when refused (all MAX held).
-- done: 1 when a kick was refused since this holder's tick began:
-- the slot passes to the next token (tick again), else 0 (released).
-- free: 1 (the slot is released).
-- Replays: slots are named members, never counts (a replayed INCR would
-- take two slots; a replayed DECR would free another holder's). A replayed
-- take finds its token held (1) or waiting (0) and answers the same; a
-- replayed done finds its token gone and answers from the next token
-- (held: 1, else 0); free removes a member that is already gone.
-- maxmemory: runs (allow-oom): slots are taken and freed; a refused kick's token (~60 bytes, for
-- the kick's budget) is written only after an enqueue, which Redis refuses while full.
-- @include lib/common/prefix-keys.lua

local kicks, waiting = KEYS[1], KEYS[2]
local op = ARGV[2]
local token = ARGV[3]
local arg = ARGV[4]
local ttlMs = tonumber(ARGV[5])

local now = now_ms()
redis.call('ZREMRANGEBYSCORE', kicks, '-inf', '(' .. (now - ttlMs))
redis.call('ZREMRANGEBYSCORE', waiting, '-inf', '(' .. (now - ttlMs))

if op == 'take' then
  if redis.call('ZSCORE', kicks, token) then return 1 end
  if redis.call('ZSCORE', waiting, token) then return 0 end
  if redis.call('ZCARD', kicks) >= tonumber(arg) then
    redis.call('ZADD', waiting, now, token)
    redis.call('PEXPIRE', waiting, ttlMs)
    return 0
  end
  redis.call('ZADD', kicks, now, token)
  redis.call('PEXPIRE', kicks, ttlMs)
  return 1
elseif op == 'done' then
  local began = redis.call('ZSCORE', kicks, token)
  local next_token = arg
  if not began then
    if redis.call('ZSCORE', kicks, next_token) then return 1 end
    return 0
  end
  redis.call('ZREM', kicks, token)
  if redis.call('ZCOUNT', waiting, began, '+inf') == 0 then return 0 end
  redis.call('ZADD', kicks, now, next_token)
  redis.call('PEXPIRE', kicks, ttlMs)
  return 1
end
redis.call('ZREM', kicks, token)
return 1
