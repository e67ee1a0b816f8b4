-- page: one page of a queue or of a sorted set (schedule, retry, dead).
-- KEYS: set
-- ARGV: prefix kind order limit budget name queue cursor(at jid near nearJid)
-- Returns: (entries[job where] cursor[] size examined)
-- set: the queue or sorted set; kind: 'z' (sorted set) or 'l' (queue); order:
-- 'asc' (oldest or soonest first) or 'desc'; budget: entries to look at, at
-- most; name: as written in "class" ('' any); queue: '' any; cursor ('' to
-- start): sorted set: score, jid, offset; queue: distance of B, jid of B,
-- distance of A, jid of A. entries: score (sorted set) or distance (queue);
-- cursor: the next cursor's fields (empty at the end); size: of the set or queue.
-- Replays: reads only.
-- maxmemory: reads only: answers as ever while Redis is full.
-- @include lib/admin/match-jobs.lua

-- A page starts from a cursor and may be filtered by job name and queue. At most
-- ARGV[5] entries are looked at per call, so a filter over a million jobs
-- answers a short page (with a cursor) rather than block Redis.
-- A cursor names the next entry B to look at, not its rank, so jobs added
-- or removed elsewhere shift nothing: no entry is skipped or repeated.
--   sorted set: B's score, jid and offset among the entries of its score.
--     Resumes at B, found by jid from DRIFT before that offset to NEAR
--     after; if B is gone, at its place (its score, its offset: a job
--     removed before it in its score as well shifts that place by one).
--   queue: distances from the head (0: next to run) of B and of A, the
--     last entry looked at. Resumes at B, found by jid near its distance
--     (fetches move it nearer the head); else just past A; if both were
--     fetched, so was all before them: oldest first starts over at the
--     head, newest first is done.

local kind = ARGV[2]
local order = ARGV[3]
local limit = tonumber(ARGV[4])
local budget = tonumber(ARGV[5])
local name = ARGV[6]
local queue = ARGV[7]
local at = ARGV[8]
local jid = ARGV[9]
local near = ARGV[10]
local nearJid = ARGV[11]

local key, asc = KEYS[1], order == 'asc'
local CHUNK, NEAR, DRIFT = 200, 200, 5000
local out, examined = {}, 0

local function full()
  return #out >= limit * 2 or examined >= budget
end

local function take(job, where)
  examined = examined + 1
  if job_matches(job, name, queue) then
    out[#out + 1] = job
    out[#out + 1] = where
  end
end

local function sorted_set()
  local size = redis.call('ZCARD', key)
  local rank
  if at == '' then
    rank = asc and 0 or size - 1
  else
    local score, offset = at, tonumber(near)
    local first = redis.call('ZCOUNT', key, '-inf', '(' .. score)
    local run = redis.call('ZCOUNT', key, score, score)
    -- Jobs removed before B (retried, deleted) move it nearer the run's start.
    local from, to = math.max(0, offset - DRIFT), math.min(run - 1, offset + NEAR)
    if jid ~= '' and to >= from then
      for k, member in ipairs(redis.call('ZRANGE', key, first + from, first + to)) do
        if has_jid(member, jid) then
          rank = first + from + k - 1
          break
        end
      end
    end
    if not rank then
      rank = first + math.min(offset, run)
      if not asc then rank = rank - 1 end
    end
  end
  while rank >= 0 and rank < size and not full() do
    local lo, hi = rank, math.min(size - 1, rank + CHUNK - 1)
    if not asc then lo, hi = math.max(0, rank - CHUNK + 1), rank end
    local entries = redis.call('ZRANGE', key, lo, hi, 'WITHSCORES')
    local n = #entries / 2
    for j = 1, n do
      local k = asc and j or n - j + 1
      take(entries[2 * k - 1], entries[2 * k])
      rank = asc and rank + 1 or rank - 1
      if full() then break end
    end
  end
  local cursor = {}
  if rank >= 0 and rank < size then
    local next_entry = redis.call('ZRANGE', key, rank, rank, 'WITHSCORES')
    local score = next_entry[2]
    cursor = { score, jid_of(next_entry[1]), rank - redis.call('ZCOUNT', key, '-inf', '(' .. score) }
  end
  return cursor, size
end

-- The distance from the head of the entry with `jid` nearest `near`,
-- looked for from DRIFT nearer the head to NEAR farther; nil if none.
local function find_near(len, near, jid)
  if jid == '' or len == 0 then return nil end
  local lo, hi = math.max(0, near - DRIFT), math.min(len - 1, near + NEAR)
  if hi < lo then return nil end
  local jobs = redis.call('LRANGE', key, -(hi + 1), -(lo + 1))
  local best
  for k = 1, #jobs do
    if has_jid(jobs[k], jid) then
      local d = hi - k + 1
      if not best or math.abs(d - near) < math.abs(best - near) then best = d end
    end
  end
  return best
end

local function queue_list()
  local len = redis.call('LLEN', key)
  local d
  if at == '' then
    d = asc and 0 or len - 1
  else
    d = find_near(len, tonumber(at), jid)
    if not d then
      local a = find_near(len, tonumber(near), nearJid)
      if a then d = asc and a + 1 or a - 1 else d = asc and 0 or -1 end
    end
  end
  local last
  while d >= 0 and d < len and not full() do
    local lo, hi = d, math.min(len - 1, d + CHUNK - 1)
    if not asc then lo, hi = math.max(0, d - CHUNK + 1), d end
    local jobs = redis.call('LRANGE', key, -(hi + 1), -(lo + 1))
    local n = #jobs
    for j = 1, n do
      -- jobs[1] is the farthest from the head
      local k = asc and n - j + 1 or j
      take(jobs[k], hi - k + 1)
      last = jobs[k]
      d = asc and d + 1 or d - 1
      if full() then break end
    end
  end
  local cursor = {}
  if d >= 0 and d < len then
    local b = redis.call('LINDEX', key, -(d + 1))
    local a_distance = asc and d - 1 or d + 1
    cursor = { d, jid_of(b), a_distance, last and jid_of(last) or '' }
  end
  return cursor, len
end

local cursor, size
if kind == 'z' then cursor, size = sorted_set() else cursor, size = queue_list() end
return { out, cursor, size, examined }
