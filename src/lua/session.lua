-- session: ends a dashboard session, or says whether it has ended. Logout
-- marks the session's nonce (random, and read only from a cookie whose HMAC
-- verified) for as long as the cookie would still be accepted, so a copied
-- cookie stops working at logout and the mark goes when the cookie expires.
-- KEYS: ended
-- ARGV: prefix op ms
-- Returns: flag
-- ended: P.."dashboard:ended:"..nonce; op: 'end' or 'check'; ms: end: ms until
-- the session expires. Returns 1 if the session has ended, else 0.
-- Replays: 'check' writes nothing; 'end' sets the same mark again, its
-- lifetime at most a round trip longer, which outlives the cookie harmlessly.
-- maxmemory: no flag: while Redis is full it is refused with REDIS_FULL before it writes anything:
-- a logout is refused (the session still ends with its TTL).
local op = ARGV[2]
local ms = ARGV[3]

if op == 'end' then
  redis.call('SET', KEYS[1], '1', 'PX', ms)
  return 1
end
return redis.call('EXISTS', KEYS[1])
