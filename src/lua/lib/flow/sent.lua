-- The job sent on for a key (lib/flow/flow.lua): the one a freed slot sent
-- to the head of its queue, which later jobs of the key wait behind.
-- @include lib/common/prefix-keys.lua
-- @include lib/flow/read.lua

local function flow_sent(F)
  local sub = string.sub

  -- `flow:sent`, a hash KEY → "SHA1 UNTIL_MS QUEUE": the job of KEY sent to a
  -- queue to take the slot when it frees, by a release (unpark) or found
  -- at the queue's head by an enqueue of its duplicate (F.sent_waits),
  -- which parks behind it: a burst waits parked, not in the queue. Every
  -- release of the key forgets it (lib/flow/slots.lua) before it sends the
  -- next on, and a delete of that job forgets it (F.unstrand), so it
  -- names a job that will still take the slot, or nothing. Believed for a
  -- day, in case that job leaves by a door tickq does not see (forgotten,
  -- a duplicate is queued, and the fetch parks it if it must), and not
  -- while its queue is paused (a job of the key for a served queue does
  -- not wait for it). One hash, whose fields are the keys as they are: a
  -- release forgets a batch's keys with one HDEL and makes no string, and
  -- none while it is empty.
  local SENT = P .. 'flow:sent'
  local SENT_MS = 86400000
  local any_sent
  local function sent_somewhere()
    if any_sent == nil then any_sent = redis.call('EXISTS', SENT) == 1 end
    return any_sent
  end
  function F.sent(key, job)
    local d = F.read(job)
    redis.call('HSET', SENT, key, redis.sha1hex(job) .. ' ' .. (now_ms() + SENT_MS) .. ' ' .. (d and F.uri_decode(d.queue) or ''))
    redis.call('PEXPIRE', SENT, SENT_MS)
    any_sent = true
  end

  -- The SHA-1 of the job sent on for `key`, or nil; and its queue.
  function F.sent_of(key)
    local v = redis.call('HGET', SENT, key)
    if not v then return nil end
    local until_ms, queue = string.match(v, '^%x+ (%d+) (.*)$')
    if until_ms and tonumber(until_ms) > now_ms() then return sub(v, 1, 40), queue end
    return nil
  end

  -- Whether `job` is the job sent on for `key`.
  function F.is_sent(key, job)
    if not sent_somewhere() then return false end
    local sent = F.sent_of(key)
    return sent ~= nil and sent == redis.sha1hex(job)
  end

  -- Whether a job of `key`, of the shape `one`, waits in a queue for its
  -- slot: the one sent on, or the newest job of `list` if it is of `key`
  -- and `shape`, then sent on.
  function F.sent_waits(key, list, shape)
    local sent, queue = F.sent_of(key)
    if sent and redis.call('SISMEMBER', P .. 'paused', queue) == 0 then return true end
    local newest = redis.call('LINDEX', list, 0)
    if not (newest and is_flow(newest)) then return false end
    local newest_shape, newest_key = F.descriptor(newest)
    if not (newest_shape == shape and newest_key == key) then return false end
    F.sent(key, newest)
    return true
  end

  -- `job` is pushed again as `text` (the jobs API's run now): if it was
  -- the job sent on for a key of it, `text` is.
  function F.resend(job, text)
    if not sent_somewhere() then return end
    local t = F.read(job)
    for _, lock in ipairs(t and t.locks or {}) do
      if F.sent_of(lock.key) == redis.sha1hex(job) then F.sent(lock.key, text) end
    end
  end

  -- Forgets the job sent on for each key of `keys`: a release, or a
  -- fetch that parked jobs of the keys (the one sent on may be among
  -- them: it waits parked now, and a key whose job sent on is parked
  -- would wait for nothing).
  function F.unsend(keys)
    if #keys > 0 and sent_somewhere() then redis.call('HDEL', SENT, unpack(keys)) end
  end
end
