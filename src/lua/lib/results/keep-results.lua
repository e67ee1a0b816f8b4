-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Results of settled jobs (src/results/): the optional section of an ack
-- (lib/tick/ack-jobs.lua) that keeps succeeded jobs in `succeeded` and
-- writes the outcome of awaited jobs to `result:JID`. The section rides on
-- the ack's "others" count, "n m count age ttl": m entries follow the n
-- others; without it (plain "n") nothing here runs, so apps that keep no
-- history and await nothing pay nothing.
-- Each entry: the number of the ack entry it belongs to (from 1, successes
-- first, as `missed` numbers them), its end state (succeeded, dead,
-- failed), 1 to keep it in `succeeded`, the jid to write `result:JID` for
-- ('' none), and a fragment of JSON object members the client built (the
-- result, its duration, or the error): spliced, never decoded.
-- Only entries whose job this call took out of the tick's list are written:
-- a replay, finding the jobs gone, writes nothing again.
-- An entry numbered 0 is a running job's progress (ctx.progress): its jid
-- and value, written to `progress:JID`; a replay writes the same value again.
-- @include lib/common/prefix-keys.lua

local PROGRESS_TTL_MS = 3600000

local function note_progress(jid, value)
  redis.call('SET', P .. 'progress:' .. jid, value, 'PX', PROGRESS_TTL_MS)
end

-- Reads the header after the others count; nil when the ack has no section.
local function results_header(count_arg)
  local n, m, keep, age, ttl = string.match(count_arg, '^(%d+) (%d+) (%d+) ([%d%.]+) (%d+)$')
  if not n then return tonumber(count_arg), nil end
  return tonumber(n), { m = tonumber(m), keep = tonumber(keep), age = tonumber(age), ttl = ttl }
end

-- The job's own text with the members spliced in after its opening brace:
-- every byte of the job kept, so a Sidekiq reader still reads it.
local function with_members(job, members)
  local open = string.find(job, '{', 1, true)
  if not open then return job end
  local sep = ','
  if string.find(job, '^%s*}', open + 1) then sep = '' end
  return string.sub(job, 1, open) .. members .. sep .. string.sub(job, open + 1)
end

-- Drops the oldest kept jobs past `keep` or older than `age` seconds, at
-- most `budget` per call: a lowered bound is reached over a few calls
-- rather than in one long one.
local function trim_succeeded(now_sec, keep, age, budget)
  local key = P .. 'succeeded'
  local size = redis.call('ZCARD', key)
  local drop = math.max(size - keep, redis.call('ZCOUNT', key, '-inf', '(' .. (now_sec - age)))
  drop = math.min(drop, budget)
  if drop > 0 then redis.call('ZREMRANGEBYRANK', key, 0, drop - 1) end
end

-- Writes the entries from ARGV[i]; `settled` maps entry numbers to the job
-- texts this call took out. Returns the index after the section.
local function keep_results(header, i, settled, now_ms_value)
  local now_sec = now_ms_value / 1000
  -- One ZADD for all: a redis.call per job would cost more than the writes.
  local zadd, kept = { 'ZADD', P .. 'succeeded' }, 0
  for _ = 1, header.m do
    local number, state, keep, jid, members = tonumber(ARGV[i]), ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
    i = i + 5
    local job = settled[number]
    if number == 0 then
      note_progress(jid, members)
    elseif job then
      if keep == '1' and header.keep > 0 then
        zadd[#zadd + 1] = now_sec
        zadd[#zadd + 1] = with_members(job, members)
        kept = kept + 1
        -- unpack takes at most a few thousand values
        if #zadd >= 2002 then
          redis.call(unpack(zadd))
          zadd = { 'ZADD', P .. 'succeeded' }
        end
      end
      if jid ~= '' then
        local record = '{"state":"' .. state .. '","finished_at":' .. now_ms_value .. ',' .. members .. '}'
        redis.call('SET', P .. 'result:' .. jid, record, 'PX', header.ttl)
      end
    end
  end
  if #zadd > 2 then redis.call(unpack(zadd)) end
  trim_succeeded(now_sec, header.keep, header.age, math.max(1000, 2 * kept))
  return i
end
