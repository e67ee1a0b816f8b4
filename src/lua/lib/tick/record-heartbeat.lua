-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Heartbeat: when a tick last began, and when one last served each queue,
-- kept in the hash `heartbeat` (fields `tick` and `queue:NAME`, Redis' epoch
-- ms). stats reads it to warn when no tick runs while jobs wait, or when
-- jobs wait in a queue that no tick serves. One HSET per tick; run again it
-- writes the same fields with a time as true as the first.
-- @include lib/common/prefix-keys.lua
local function heartbeat(now, registration)
  local fields = { 'tick', now }
  for _, queue in ipairs(registered_queues(registration)) do
    fields[#fields + 1] = 'queue:' .. queue
    fields[#fields + 1] = now
  end
  redis.call('HSET', P .. 'heartbeat', unpack(fields))
end
