-- enqueue: push jobs, or schedule them, with Redis' time as created_at and
-- enqueued_at. Job JSON arrives without those fields and with `}` last; they
-- are appended as text so the rest of the string is kept as sent.
-- KEYS: [1] P.."queues"  [2] P.."schedule"
-- ARGV: [1] prefix  [2] n, then n groups of: queue, delay ms, at ms (0:
--       none), job JSON
-- Returns: the number of jobs pushed or scheduled.
-- @include lib/common.lua

local now = now_ms()
local now_sec = now / 1000
local stamp = string.format('%.3f', now_sec)
local n = tonumber(ARGV[2])
local i = 3
for _ = 1, n do
  local queue, delay, at, job = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]), ARGV[i + 3]
  i = i + 4
  local due = now
  if at > 0 then due = at elseif delay > 0 then due = now + delay end
  local body = string.sub(job, 1, -2) .. ',"created_at":' .. stamp
  if due > now then
    redis.call('ZADD', KEYS[2], due / 1000, body .. '}')
  else
    redis.call('SADD', KEYS[1], queue)
    redis.call('LPUSH', P .. 'queue:' .. queue, body .. ',"enqueued_at":' .. stamp .. '}')
  end
end
return n
