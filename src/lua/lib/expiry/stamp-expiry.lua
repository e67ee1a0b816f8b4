-- Expiry at enqueue (src/expiry/): a job the client gave an expiry opens
-- with `{"tickq_expires_in":MS,`; it is rewritten here to
-- `{"tickq_expires_at":EPOCH_MS,` by Redis' clock, so every reader of the
-- job compares it with the same clock. A job without one is returned as is
-- after one byte compare.

local EXPIRES_IN_HEAD = '{"tickq_expires_in":'
local EXPIRY_LETTER_AT = 9 -- the letter after `{"tickq_`: 'e' here, 'f' for a flow job
local EXPIRES_LETTER = string.byte(EXPIRES_IN_HEAD, EXPIRY_LETTER_AT)

local function stamp_expiry(job, now)
  if string.byte(job, EXPIRY_LETTER_AT) ~= EXPIRES_LETTER then return job end
  local ms, rest = string.match(job, '^{"tickq_expires_in":(%d+)(,.*)$')
  if not ms then return job end
  return '{"tickq_expires_at":' .. string.format('%.0f', now + tonumber(ms)) .. rest
end
