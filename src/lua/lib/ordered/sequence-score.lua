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
-- `tops`: key → the highest score in [now, now + 1) the script knows the key
-- holds (false: none), read once a key and kept by note_score as the script
-- adds: a bulk call reads each id's zsets once, not once a payload.
local function sequenced_score(now, keys, tops)
  local top
  for _, key in ipairs(keys) do
    local score = tops[key]
    if score == nil then
      local found = redis.call('ZREVRANGEBYSCORE', key, string.format('(%.17g', now + 1), now, 'WITHSCORES', 'LIMIT', 0, 1)
      score = tonumber(found[2]) or false
      tops[key] = score
    end
    if score and (not top or score > top) then top = score end
  end
  if not top then return now end
  -- One unit in the last place of `top`: the next double above it.
  local _, exponent = math.frexp(top)
  return top + math.ldexp(1, exponent - 53)
end

-- `score` was just added to `key`: the key's known top moves up to it (a
-- key never read stays unknown). An identical payload that kept a lower
-- score leaves the top higher than stored: the next payload still sorts
-- after every earlier one.
local function note_score(tops, key, score, now)
  local known, s = tops[key], tonumber(score)
  if known ~= nil and s >= now and s < now + 1 and (not known or s > known) then tops[key] = s end
end
