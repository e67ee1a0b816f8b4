-- Finding a waiting job the jobs API names by its text as read. A job whose
-- bytes are not valid UTF-8 (another client's push) is read by every client
-- with U+FFFD in place of the bad bytes, so its text as read names nothing
-- in Redis. The client names it '~' .. the SHA-1 of that text (src/admin/as-read-name.ts)
-- and says where it saw it: a sorted set's score, or a list's distance from
-- its head (the end ticks take from). This finds the stored entry there whose
-- text as read (lib/common/utf8-as-read.lua) hashes to the name: only
-- entries at that score (up to SAME_SCORE_MAX), or within NEAR of that
-- distance, are read, so a call stays bounded however large the set or list. A job that moved
-- farther (ticks fetched past it, or put many back ahead of it) is not
-- found, and the caller looks again. A plain job is named by its text and
-- never comes here.
-- Reads only: a replay or a concurrent tick finds what is there when it runs;
-- at maxmemory it writes nothing (the texts read live in the call's memory).
-- Every function lives in the one table `as_read`: an entry script's main chunk
-- holds at most 200 locals.
-- @include lib/common/utf8-as-read.lua
-- @include lib/common/edit-job-text.lua

local as_read = {}

-- Entries read each side of a list distance; entries read at one score a
-- page (members of one score sort by their bytes, so the job may be behind
-- many others there: a bulk schedule at one time), and at most in all.
as_read.NEAR = 500
as_read.SAME_SCORE = 1000
as_read.SAME_SCORE_MAX = 100000

-- Whether `name` is a '~' name: a stored text shaped like one is itself
-- named by its own SHA-1 (the client names it so), never by its text.
function as_read.is_name(name)
  return #name == 41 and string.byte(name) == 126 and string.find(name, '^~%x+$') ~= nil
end

-- Whether stored `job` is the one `name` names. Only a text holding a byte
-- >= 0x80 (or one shaped like a name) can be read as a text holding U+FFFD,
-- or be named so: any other is skipped with no hash.
local function named(job, name)
  if not string.find(job, '[\128-\255]') and #job ~= 41 then return false end
  return '~' .. redis.sha1hex(utf8_as_read(job)) == name
end

-- The stored text at score `score` (Redis' own text of it) of sorted set
-- `key` that `name` names, or nil.
function as_read.in_sorted(key, name, score)
  if not tonumber(score) then return nil end
  for offset = 0, as_read.SAME_SCORE_MAX - 1, as_read.SAME_SCORE do
    local page = redis.call('ZRANGEBYSCORE', key, score, score, 'LIMIT', offset, as_read.SAME_SCORE)
    for k = 1, #page do
      if named(page[k], name) then return page[k] end
    end
    if #page < as_read.SAME_SCORE then return nil end
  end
  return nil
end

-- The stored text of list `key` that `name` names, nearest distance `d`
-- from the list's head (its right end) first, and its distance; or nil.
function as_read.in_list(key, name, d)
  d = tonumber(d)
  if not d or d < 0 then return nil end
  local len = redis.call('LLEN', key)
  if d < len then
    local job = redis.call('LINDEX', key, -(d + 1))
    if job and named(job, name) then return job, d end
  end
  local lo, hi = math.max(0, d - as_read.NEAR), math.min(len - 1, d + as_read.NEAR)
  if lo > hi then return nil end
  -- Left index of distance hi; items run from distance hi down to lo.
  local start = len - 1 - hi
  local items = redis.call('LRANGE', key, start, len - 1 - lo)
  local best, best_at
  for k = 1, #items do
    local at = hi - (k - 1)
    if (not best_at or math.abs(at - d) < math.abs(best_at - d)) and named(items[k], name) then
      best, best_at = items[k], at
    end
  end
  return best, best_at
end

-- The stored text of list `key` that `name` names, the whole list read: for
-- a tick's list, which holds what one tick fetched (LPOS reads it whole too).
function as_read.in_all(key, name)
  for _, job in ipairs(redis.call('LRANGE', key, '0', '-1')) do
    if named(job, name) then return job end
  end
  return nil
end

-- The stored text `name` names where the jobs API saw it (`from`, under the
-- prefix: a sorted set, 'queue:NAME', a flow park list, or 'inproc:QUEUE' with
-- the tick's list as `key`), `where` its score or distance; and its distance
-- in a list. nil when not there. A queue's priority or group set is not
-- looked in: the find gives no score for it (the client names such a job by its text).
function as_read.find(key, from, name, where)
  if string.sub(from, 1, 7) == 'inproc:' then return as_read.in_all(key, name) end
  if string.sub(from, 1, 6) == 'queue:' or string.sub(from, 1, 10) == 'flow:park:' then
    return as_read.in_list(key, name, where)
  end
  if string.sub(from, 1, 5) == 'prio:' or string.sub(from, 1, 6) == 'group:' then return nil end
  return as_read.in_sorted(key, name, where)
end

-- `job` with the fields of `patch` set (a JSON array of field name, value as
-- JSON text, name, value…; '' for none), each spliced into the stored
-- bytes (lib/common/edit-job-text.lua's with_field): the bad bytes are kept.
-- `job` as it is when it is not a JSON object.
function as_read.patched(job, patch)
  if patch == '' then return job end
  local ok, fields = pcall(cjson.decode, patch)
  if not ok or type(fields) ~= 'table' then return job end
  local text = job
  for k = 1, #fields - 1, 2 do
    text = with_field(text, fields[k], fields[k + 1])
    if not text then return job end
  end
  return text
end
