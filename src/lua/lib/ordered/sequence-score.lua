-- The score of a payload sent without one: Redis' time in ms, sequenced
-- within the ms. A sorted set orders equal scores by member (the JSON
-- text), so payloads of one id that land in one ms (a bulk call is one
-- script run, one time) would run in text order, 407 before 7. Each takes
-- the next double above the highest score its id holds in [now, now + 1):
-- 4,096 steps a ms at today's times (2^-12 ms until 2039), so they run in
-- the order their enqueues were applied, and the score stays Redis' time to
-- within a ms. Explicit scores are never changed.
-- `keys`: the id's zsets whose payloads run or merge together (p:ID, and
-- n:ID while a tick holds the id: an unfinished run merges them by score).
local function sequenced_score(now, keys)
  local top
  for _, key in ipairs(keys) do
    local found = redis.call('ZREVRANGEBYSCORE', key, string.format('(%.17g', now + 1), now, 'WITHSCORES', 'LIMIT', 0, 1)
    local score = tonumber(found[2])
    if score and (not top or score > top) then top = score end
  end
  if not top then return now end
  -- One unit in the last place of `top`: the next double above it.
  local _, exponent = math.frexp(top)
  return top + math.ldexp(1, exponent - 53)
end
