-- The jobs API's state changes carry a token drawn per call (as enqueue
-- does): the reply is kept under `op:TOKEN` for a while, so a call the
-- client resends after losing the reply answers the first run's reply and
-- changes nothing. Replies are strings.
-- @include lib/common/prefix-keys.lua

local function kept_reply(token)
  return redis.call('GET', P .. 'op:' .. token)
end

local function keep_reply(token, ms, reply)
  redis.call('SET', P .. 'op:' .. token, reply, 'PX', ms)
  return reply
end
