-- move: takes jobs out of where they wait, deleting them or pushing them to their queue.
-- KEYS: queues
-- ARGV: prefix token keepMs jobs[](from job action push distance)
-- Returns: text
-- jobs: where it is ('schedule', 'retry', 'dead', 'queue:NAME', for a job with a
-- priority or a group 'queue:NAME', 'prio:NAME' or 'group:NAME GROUP'
-- (lib/order/read-order.lua), or a flow park list 'flow:park:KEY'), its stored text, 'push' or 'delete', the text to push
-- ('' for the stored text), its distance from the queue's head ('' unknown).
-- A job whose bytes are not valid UTF-8 is named by '~' .. the SHA-1 of its text
-- as read (lib/admin/find-as-read.lua): then distance is where it was seen (a
-- sorted set's score, or a list's distance), and push is the fields to set in its
-- stored bytes (a JSON array of name, value as JSON; '' none), not a text.
-- Returns one character per job: '1' done, '0' no longer there (a tick or
-- another call took it first), 'u' left where it is: its queue cannot be read.
-- Replays: the token (lib/admin/answer-once.lua) answers a resent call with the first
-- reply, doing nothing. Even without it a second run finds none of the
-- stored texts where they were and moves nothing (nor forgets any count);
-- a job named by its text as read is looked for again and, gone, is '0'.
-- maxmemory: no flag: it first takes each job out of where it waits, so it runs while Redis is full
-- (Redis refuses a script only at a first write that may grow memory); a delete frees memory, a
-- move to the queue adds what it removed. Finding a job by its text as read only reads.
-- @include lib/common/prefix-keys.lua
-- @include lib/debounce/close-window.lua
-- @include lib/order/read-order.lua
-- @include lib/flow/read.lua
-- @include lib/flow/flow.lua
-- @include lib/order/remove-job.lua
-- @include lib/admin/answer-once.lua
-- @include lib/order/queue-job.lua
-- @include lib/common/edit-job-text.lua
-- @include lib/admin/find-as-read.lua

-- A job waits in a sorted set (schedule, retry, dead) or a queue; it is
-- deleted, or pushed to the tail of its queue (retry, run now). Each job is named by its exact stored text, and
-- acts only if that text is still there: if a tick moved it first (due,
-- fetched), this call leaves it alone and says so. Taking it out and
-- pushing it happen in one script, so a job is never in two places or none.
-- A pushed job's `enqueued_at` is set to now, as Sidekiq's client sets it
-- when its API retries a job (spliced: every other byte is kept).
-- A queue job is removed by its distance from the head when it is still
-- there (LSET to a marker, then one LREM of the markers from the nearer
-- end), else by LREM from the nearer end: never a scan of a whole queue per job.
-- Jobs in process (a tick's lists) are not taken: the caller refuses them.
-- Deleting a flow job ends its until-executed or coalesce claim; pushing
-- one (retry, run now) takes the claim back unless a newer job holds it.
-- Deleting one moves its keys' next parked job on when a key has a free
-- slot that no job sent on waits for (lib/flow/slots.lua F.unstrand).

local token = ARGV[2]
local keepMs = ARGV[3]
local jobsAt = 4

local kept = kept_reply(token)
if kept then return kept end

local MARK = '\0tickq:moved:' .. token
local stamp = string.format('%.3f', now_ms() / 1000)
local marked = {}
local flags = {}
local i = jobsAt + 1
for k = 1, tonumber(ARGV[jobsAt]) do
  local from, job, action, new_text, hint = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  i = i + 5
  local key = P .. from
  -- A job named by its text as read (lib/admin/find-as-read.lua): its stored
  -- bytes where the client saw it, and what to push is a patch of them. A
  -- plain job is named by its text: one length check, nothing read.
  local missing = false
  if #job == 41 and string.byte(job) == 126 and as_read.is_name(job) then
    local stored, at = as_read.find(key, from, job, hint)
    if stored then
      job, new_text = stored, as_read.patched(stored, new_text)
      if at then hint = tostring(at) end
    else
      missing = true
    end
  end
  if new_text == '' then new_text = job end
  local target
  if action == 'push' and not missing then target = queue_of(new_text) end
  if missing then
    flags[k] = '0'
  elseif action == 'push' and not target then
    flags[k] = 'u'
  else
    local removed = false
    -- The queue a queued job waits in: its list, or its priority or group set.
    local owner = string.match(from, '^queue:(%S+)$') or string.match(from, '^prio:(%S+)$') or string.match(from, '^group:(%S+) ')
    if owner and (string.sub(from, 1, 6) ~= 'queue:' or order.of(job)) then
      removed = order.remove(owner, job) == 1
    elseif string.sub(from, 1, 6) == 'queue:' then
      local len = redis.call('LLEN', key)
      local d = tonumber(hint)
      if d and d >= 0 and d < len and redis.call('LINDEX', key, -(d + 1)) == job then
        redis.call('LSET', key, -(d + 1), MARK)
        local m = marked[key] or { count = 0, distance = 0 }
        m.count, m.distance = m.count + 1, math.max(m.distance, d)
        m.len = len
        marked[key] = m
        removed = true
      else
        local direction = -1
        if d and d > len / 2 then direction = 1 end
        removed = redis.call('LREM', key, direction, job) == 1
      end
    elseif string.sub(from, 1, 10) == 'flow:park:' then
      removed = redis.call('LREM', key, -1, job) == 1
      if removed then flow().unparked(job, string.sub(from, 11)) end
    else
      removed = redis.call('ZREM', key, job) == 1
      if removed and from == 'schedule' then close_debounce_window(job) end
    end
    -- A job put back by a tick (queued or parked) may carry counts and a
    -- suspect mark by its text (lib/tick/ack-jobs.lua, lib/tick/resurrect-dead-ticks.lua): they go
    -- with it, deleted or pushed anew, so none outlives its job.
    if removed and (owner or string.sub(from, 1, 10) == 'flow:park:') then
      redis.call('HDEL', P .. 'resurrections', job)
      redis.call('HDEL', P .. 'interruptions', job)
      redis.call('HDEL', P .. 'suspects', job)
      redis.call('HDEL', P .. 'doubts', job)
    end
    if removed and action == 'push' then
      local pushed = with_field(new_text, 'enqueued_at', stamp) or new_text
      redis.call('SADD', KEYS[1], target)
      order.push(target, pushed, false)
      -- the job sent on for its key (deferred by its rate limit, run now) is still that job
      if is_flow(job) then flow().resend(job, pushed) end
    end
    -- A deleted flow job never runs: its unique claims end; a pushed one
    -- holds its key again (lib/flow/flow.lua).
    if removed and is_flow(job) then
      if action == 'delete' then flow().forget(job) else flow().reclaim(job) end
      if action == 'delete' then flow().unstrand(job) end
    end
    flags[k] = removed and '1' or '0'
  end
end
for key, m in pairs(marked) do
  -- From the head when the farthest marker is in the nearer half.
  local direction = -m.count
  if m.distance > m.len / 2 then direction = m.count end
  redis.call('LREM', key, direction, MARK)
end
return keep_reply(token, keepMs, table.concat(flags))
