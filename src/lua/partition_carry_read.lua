-- partition_carry_read: what a job of the old layout depends on there, read
-- before migratePartitions moves it (partition_adopt.lua carries it): the
-- debounce window its text holds open; for a flow job, whether it holds its
-- until-executed claim and its coalesce wait claim, the due its rate limit
-- deferred it to, the starts its rate key logged in the last period, and the
-- keys of its concurrency or unique slots that a running job holds (its
-- tick's lease alive): such a job is not moved, as the new layout could start
-- it beside that job. Reads only.
-- KEYS: locks
-- ARGV: prefix job
-- Returns: (windowFirst windowTtl claim wait deferred held[] rate[member at])
-- locks: P.."flow:locks" (it names the partition's slot); job: as stored.
-- windowFirst: the ms of its debounce window's first enqueue, '' when the job
-- holds no window open; windowTtl: that window's PTTL.
-- claim, wait: 1 when the job's jid holds that claim; deferred: the due ms in
-- `flow:deferred:NAME`, '' when none; held: the slot keys a live tick holds;
-- rate: the rate log's entries of the last period (member, start ms). A job
-- that is no flow job, or whose descriptor cannot be read, holds no claim,
-- slot or rate log.
-- Replays: it writes nothing, so a second run answers what Redis holds then.
-- maxmemory: reads only: answers as ever while Redis is full.
-- @include lib/common/prefix-keys.lua
-- @include lib/debounce/close-window.lua
-- @include lib/flow/read.lua
local job = ARGV[2]
local window, first, ttl = debounce_window_of(job), '', 0
if window and redis.call('HGET', window, 'text') == job then
  first = redis.call('HGET', window, 'first') or ''
  ttl = redis.call('PTTL', window)
end
local F = {}
flow_read(F)
local d, jid = nil, nil
if is_flow(job) then d, jid = F.read(job) end
if not d then return {first, ttl, 0, 0, '', {}, {}} end

local function holds(what, key)
  return key and redis.call('GET', F.key(what, key)) == jid and 1 or 0
end

local function live(field)
  return redis.call('EXISTS', P .. 'tick:' .. string.match(field, '^%S+')) == 1
end

local held = {}
for _, lock in ipairs(d.locks) do
  local busy = false
  if string.sub(lock.key, 1, 2) == 'u:' then
    local owner = redis.call('GET', F.key('owner', lock.key))
    busy = owner and live(owner)
  else
    for _, field in ipairs(redis.call('HKEYS', F.key('held', lock.key))) do
      if live(field) then busy = true end
    end
  end
  if busy then held[#held + 1] = lock.key end
end

local deferred, rate = '', {}
if d.rate then
  deferred = redis.call('ZSCORE', P .. 'flow:deferred:' .. d.name, jid) or ''
  rate = redis.call('ZRANGEBYSCORE', F.key('rate', d.rate.key), '(' .. (now_ms() - d.rate.period), '+inf', 'WITHSCORES')
end
return {first, ttl, holds('claim', d.claim), holds('wait', d.wait), deferred, held, rate}
