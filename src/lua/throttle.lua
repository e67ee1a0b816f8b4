-- throttle: counts a client's failed logins and bearer tokens in a fixed
-- window (src/http/throttle.ts), or says how long the client must wait.
-- KEYS: failures
-- ARGV: prefix op windowMs limit attempt
-- Returns: number
-- failures: P.."auth-failures:"..client, a set of failed attempts' ids; op:
-- 'check' or 'fail'; attempt: the failed attempt's id ('fail'). Returns the
-- ms until the client may try again (0: now). The first failure starts the
-- window; the set expires with it. A refused client is not counted again (the
-- check comes first), so the set holds about `limit` ids at most.
-- Replays: a resent 'fail' adds an id already there and finds the window
-- set, so it counts once; 'check' only reads.
-- maxmemory: no flag: while Redis is full a 'fail' is refused with REDIS_FULL
-- before it writes, and the HTTP app lets the request through uncounted, as
-- with Redis unreachable (auth does not need Redis).
local op = ARGV[2]
local windowMs = ARGV[3]
local limit = tonumber(ARGV[4])
local attempt = ARGV[5]

local failures = KEYS[1]
if op == 'fail' then
  redis.call('SADD', failures, attempt)
  if redis.call('PTTL', failures) < 0 then redis.call('PEXPIRE', failures, windowMs) end
end
if redis.call('SCARD', failures) < limit then return 0 end
return math.max(redis.call('PTTL', failures), 1)
