-- enqueue: push jobs, or schedule them, with Redis' time as created_at and
-- enqueued_at. Job JSON arrives without those fields and with `}` last; they
-- are appended as text so the rest of the string is kept as sent.
-- KEYS: queues schedule
-- ARGV: prefix token tokenMs idWindowMs jobs[](queue delayMs atMs jid job)
-- Returns: text
-- jobs: queue, delay ms, at ms (0: none), the jid if the caller chose it ('' if
-- tickq drew it), job JSON. tokenMs: how long the call token is kept; idWindowMs:
-- how long a caller's jid is remembered.
-- Returns one character per job, "1" pushed or scheduled, "0" skipped
-- because its caller-chosen jid was enqueued within the id window,
-- "2" a duplicate of a unique key another job holds (lib/flow/flow.lua:
-- nothing written, its own jid not remembered);
-- then, for each "2", a space and that job's jid (%XX-escaped).
-- A job opening with `{"tickq_expires_in":MS,` gets its expiry by Redis'
-- clock (lib/expiry/stamp-expiry.lua).
-- A flow job whose key is full is parked rather than queued, and
-- so is a while-executing job whose key has a job queued that
-- waits for its slot (lib/flow/claims.lua F.enqueue).
-- Replays: the call token (drawn per call) is set NX for the call window;
-- a replay finds it and answers the first run's reply, pushing nothing. A
-- caller's own jid is remembered in one sorted set, `jids`, scored by the
-- time it may be forgotten (its push plus the pushing client's id window),
-- so a caller retrying a timed-out enqueue with the same jid never doubles
-- the job, whatever window the retrying client was given. Jids pushed
-- before it was one set (`jids:WINDOW:BUCKET`, which expire within two
-- windows) are still honoured for this client's window and the default.
-- No allow-oom flag: when Redis is full (noeviction) the first write is
-- refused and nothing is pushed; the caller gets a clear error.
-- maxmemory: no flag: while Redis is full it is refused with REDIS_FULL before it writes anything
-- (documented: ticks still drain).
-- @include lib/common/prefix-keys.lua
-- @include lib/order/read-order.lua
-- @include lib/flow/read.lua
-- @include lib/flow/flow.lua
-- @include lib/expiry/stamp-expiry.lua
-- @include lib/order/queue-job.lua

-- The default idWindowMs (src/tick/runtime.ts): its sets of the old shape are
-- the likeliest to hold jids pushed before a deploy.
local token = ARGV[2]
local tokenMs = ARGV[3]
local idWindowMs = tonumber(ARGV[4])
local jobsAt = 5

local DEFAULT_ID_WINDOW = 86400000

local token_key = P .. 'enq:' .. token
if not redis.call('SET', token_key, '', 'NX', 'PX', tokenMs) then
  return redis.call('GET', token_key)
end
local now = now_ms()
local stamp = string.format('%.3f', now / 1000)
local window = idWindowMs
local ids = P .. 'jids'
redis.call('ZREMRANGEBYSCORE', ids, '-inf', now)
local legacy = {}
for _, w in ipairs(window == DEFAULT_ID_WINDOW and { window } or { window, DEFAULT_ID_WINDOW }) do
  local bucket = math.floor(now / w)
  legacy[#legacy + 1] = P .. 'jids:' .. w .. ':' .. bucket
  legacy[#legacy + 1] = P .. 'jids:' .. w .. ':' .. (bucket - 1)
end
local function remembered(jid)
  if redis.call('ZSCORE', ids, jid) then return true end
  for k = 1, #legacy do
    if redis.call('SISMEMBER', legacy[k], jid) == 1 then return true end
  end
  return false
end
local flags, duplicates = {}, {}
local i = jobsAt + 1
for k = 1, tonumber(ARGV[jobsAt]) do
  local queue, delay, at, own_jid, job = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]), ARGV[i + 3], ARGV[i + 4]
  i = i + 5
  job = stamp_expiry(job, now)
  -- A caller's own jid already enqueued comes first: sent again after it
  -- ran, a unique job's key may be another's by now, and answering that
  -- jid would tell the caller its job was merged when it was enqueued.
  local fresh = own_jid == '' or not remembered(own_jid)
  local holder
  if fresh and is_flow(job) then holder = flow().holder(job) end
  if holder then
    fresh = false
  elseif fresh and own_jid ~= '' then
    redis.call('ZADD', ids, now + window, own_jid)
    if redis.call('PTTL', ids) < window then redis.call('PEXPIRE', ids, window) end
  end
  local flag = fresh and '1' or '0'
  if holder then
    flag = '2'
    duplicates[#duplicates + 1] = holder
  end
  if fresh then
    local due = now
    if at > 0 then due = at elseif delay > 0 then due = now + delay end
    local list = P .. 'queue:' .. queue
    if is_flow(job) then list = flow().enqueue(job, list, due <= now) end
    local body = string.sub(job, 1, -2) .. ',"created_at":' .. stamp
    if due > now then
      redis.call('ZADD', KEYS[2], due / 1000, body .. '}')
    else
      redis.call('SADD', KEYS[1], queue)
      local text = body .. ',"enqueued_at":' .. stamp .. '}'
      if order.is_queue_list(queue, list) then order.push(queue, text, false) else redis.call('LPUSH', list, text) end
    end
  end
  flags[k] = flag
end
local reply = table.concat(flags)
if #duplicates > 0 then reply = reply .. ' ' .. table.concat(duplicates, ' ') end
redis.call('SET', token_key, reply, 'PX', tokenMs)
return reply
