-- clear: deletes every job of one sorted set (schedule, retry, dead, a queue's
-- priority or group set, lib/order/read-order.lua) or of one queue's list at once (UNLINK frees a large one off Redis' main thread).
-- Jobs in process are elsewhere (a tick's lists) and stay there. Flow
-- jobs' unique claims end with them: the whole set is read once (a plain
-- job costs a byte compare), so clearing is O(jobs), as UNLINK frees them.
-- KEYS: set
-- ARGV: prefix token keepMs
-- Returns: number
-- set: the sorted set or queue; token: the call token; keepMs: how long the reply
-- is kept. Returns how many jobs were deleted, as a string.
-- Replays: the token (lib/admin/answer-once.lua) answers a resent call with the first
-- reply and deletes nothing more: jobs that arrived since stay.
-- maxmemory: no flag: it first deletes, so it runs while Redis is full and frees memory.
-- @include lib/common/prefix-keys.lua
-- @include lib/debounce/close-window.lua
-- @include lib/order/read-order.lua
-- @include lib/flow/read.lua
-- @include lib/flow/flow.lua
-- @include lib/order/remove-job.lua
-- @include lib/admin/answer-once.lua

local token = ARGV[2]
local keepMs = ARGV[3]

local kept = kept_reply(token)
if kept then return kept end
local size = 0
local kind = redis.call('TYPE', KEYS[1]).ok
if kind == 'zset' then size = redis.call('ZCARD', KEYS[1]) elseif kind == 'list' then size = redis.call('LLEN', KEYS[1]) end
-- Flow jobs among them never run: their unique claims end (lib/flow/flow.lua);
-- debounced jobs cleared from `schedule` close their windows
-- (lib/debounce/close-window.lua). Read in stretches; a plain job costs a
-- byte compare or two.
local from_schedule = KEYS[1] == P .. 'schedule'
local STRETCH = 1000
local cleared = {}
for from = 0, size - 1, STRETCH do
  local jobs
  if kind == 'zset' then jobs = redis.call('ZRANGE', KEYS[1], from, from + STRETCH - 1) else jobs = redis.call('LRANGE', KEYS[1], from, from + STRETCH - 1) end
  for _, job in ipairs(jobs) do
    if is_flow(job) then
      flow().forget(job)
      cleared[#cleared + 1] = job
    elseif from_schedule then
      close_debounce_window(job)
    end
  end
end
if size > 0 then redis.call('UNLINK', KEYS[1]) end
-- A group's set (lib/order/read-order.lua) cleared leaves its queue's ring.
local group_of = string.sub(KEYS[1], 1, #P + 6) == P .. 'group:' and string.sub(KEYS[1], #P + 7)
if group_of then
  local queue, group = string.match(group_of, '^(%S+) (.+)$')
  if queue then order.forget_group_if_empty(queue, group) end
end
-- The cleared flow jobs' keys' next parked jobs move on where a key has a
-- free slot no job sent on waits for (F.unstrand), once the list is gone:
-- not into it.
for _, job in ipairs(cleared) do flow().unstrand(job) end
return keep_reply(token, keepMs, tostring(size))
