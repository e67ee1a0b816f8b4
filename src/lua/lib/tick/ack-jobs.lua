-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Ack pass: settles the jobs a tick executed. Each entry names its outcome:
--   (successes come grouped by queue, apart) dropped from inproc
--   r  failed, will retry: the updated job goes to `retry`, due in DELAY s
--   d  dead: the updated job goes to `dead` (capped in size and age)
--   x  discarded (out of retries with `dead: false`): dropped, counted
--   u  dead without running (poison, malformed, too long for any tick):
--      as d, but not counted as processed or failed: it did not run
--   q  not started: back to the head of its queue, not counted
--   i  interrupted at the deadline: back to the head, counted in
--      `interruptions` (apart from `resurrections`, which count tick deaths)
--      so a job that never finishes in time ends dead, named as such
--   l  stopped because the tick could not confirm its lease in time (Redis
--      slow, or a handler blocking the event loop): back to the head,
--      counted in `doubts`, so one that always blocks ends as a failed
--      attempt (src/passes/execute.ts) instead of going round forever
-- Every entry acts only if it was still in this tick's list: if the tick
-- lost its lease and a resurrector already put the job back, the ack does
-- nothing and the job runs again (at-least-once, never lost). Run twice,
-- the second run finds none of its jobs listed and does nothing; callers
-- also answer replays from lib/tick/replay-call.lua before acking.
-- Each list is settled in one pass: read whole, the named jobs taken out
-- (oldest first, as LREM -1 would), the rest written back in their order.
-- One LRANGE and one rewrite cost less than an LREM per job once the list
-- also holds the jobs fetched ahead (the pipeline). Only jobs found in the
-- list count: an entry resent after a lost reply, naming a job already
-- acked, finds nothing and does nothing. A list too long to rewrite in one
-- call (over LIST_REWRITE_MAX) falls back to an LREM per job.
-- Most acks name exactly a list's oldest jobs: those are read from its tail
-- alone and cut with one LTRIM (take_tail), the jobs fetched ahead never read
-- nor rewritten; it takes the jobs the whole-list pass would. Run twice, the
-- second run finds the tail no longer holds them and takes the whole-list
-- pass, which finds none; a concurrent tick never writes this tick's lists,
-- and this tick's other lane only pushes at the head or takes named jobs, so
-- the tail read is the list as the cut meets it (one script). At maxmemory it
-- only removes (allow-oom, as before). A group cut whole tells its flow jobs by
-- one search of its joined value for a job opening '{"t' (none: no call a job);
-- a pure read of the call's own arguments, so a replay decides the same.
-- A whole fetched group, all succeeded, may come named by its place in the list (by_place below):
-- cut with one LTRIM when the lease hash's counts prove it is the list's oldest jobs, no job read.
-- With its jobs' text ("PLACE"), it is else settled by text as any other. Named by its place alone
-- ("PLACE+COUNT", no text: the tick's steps, src/tick/passes/ack.ts), it is else left listed and
-- all its entries answered in `missed`, and the tick sends them again by text in a later call (its
-- finish names no group by place alone, so none is left listed for good by a live tick). Run twice,
-- the counts have moved past it: by text, nothing found; by place alone, nothing done and the same
-- entries answered (a replay answers the kept reply anyway, `missed` in it). A tick that dies before
-- the resend leaves those jobs listed for the resurrector, as any job it had not acked. A tick of an
-- older release calls its own scripts (their SHA-1s differ) and never names a group by place alone.
-- A group named by place with its text that the lease hash shows cut already (by_place.gone: a
-- given-up step cut it by place alone, and finish names it again) is answered missed, not matched
-- by text; run twice, the same; at maxmemory it writes nothing.
-- A concurrent tick never writes this tick's lists nor its lease hash; this tick's other lane only
-- pushes at the head (the counts move with it, one script at a time). At maxmemory a group left
-- listed writes nothing; one cut frees its jobs and rewrites one small field (`cut:QUEUE`).
-- A flow job (lib/flow/flow.lua) settles its slots and claims with it, only
-- when it was still listed: a late ack frees nothing another tick holds.
-- `held`: the tick's lease is held, so its slots are still its own.
-- A job over REF_MIN bytes may be named by reference, '#' .. its SHA-1,
-- instead of its text, so that no ack grows with the size of its jobs (a
-- call of whole 50 MB jobs passes what a client can even encode); a failed
-- one then carries the fields to set (a patch) instead of its updated
-- text. References are matched only against the list being settled, so a
-- replay, finding the job gone, does nothing as before.
-- A job the client read with U+FFFD (its bytes are not valid UTF-8: another
-- client's push) is named by '~' .. the SHA-1 of its text as read, which Lua
-- gets from the stored bytes (lib/common/utf8-as-read.lua): its text as read
-- is not its text in the list. It is settled as a large job is, a failure
-- by a patch, so its retry or dead entry keeps the stored bytes. Only an ack
-- that names such a job reads the list's jobs holding a byte >= 0x80 again;
-- two stored jobs read as the same text are the same job to the tick, as two
-- jobs of the same text are. A tick of an older release calls its own scripts
-- (their SHA-1s differ) and names such a job by its text, missing it as before.
-- The others count may carry a results section (lib/results/keep-results.lua)
-- after the others: kept succeeded jobs and awaited outcomes; and then a
-- metrics section (lib/metrics/record-runs.lua): runs, durations and waits.
--   c  cancelled (the tick heard of its cancel): recorded cancelled
--      (lib/cancel/record-cancelled.lua), not counted as processed
-- Any job of the tick marked cancelled (lib/cancel/read-cancel-marks.lua) is
-- settled as cancelled whatever its entry says: the cancel was answered
-- before this ack ran, so it wins over the handler's success, failure or
-- put-back, and a result it returned is discarded. The marks are read once a
-- call, and only when `marked` (lib/tick/replay-call.lua's call_state: a
-- mark flagged the lease, or the lease is gone): a tick none of whose jobs
-- was cancelled pays nothing for them.
-- @include lib/common/prefix-keys.lua
-- @include lib/order/read-order.lua
-- @include lib/flow/read.lua
-- @include lib/flow/flow.lua
-- @include lib/cancel/read-cancel-marks.lua
-- @include lib/cancel/record-cancelled.lua
-- @include lib/order/queue-job.lua
-- @include lib/results/keep-results.lua
-- @include lib/common/edit-job-text.lua
-- @include lib/metrics/record-runs.lua
-- @include lib/common/joined.lua
-- @include lib/common/utf8-as-read.lua

-- `dead`: the dead set to trim, P .. 'dead' when nil (an ordered name's: lib/ordered/ack-ids.lua).
local function trim_dead(now_sec, max_size, max_age, dead)
  dead = dead or P .. 'dead'
  local evicted = redis.call('ZREMRANGEBYSCORE', dead, '-inf', '(' .. (now_sec - max_age))
  local size = redis.call('ZCARD', dead)
  if size > max_size then
    evicted = evicted + redis.call('ZREMRANGEBYRANK', dead, 0, size - max_size - 1)
  end
  if evicted > 0 then redis.call('INCRBY', P .. 'stat:dead_evicted', evicted) end
  return evicted
end

local STATS_TTL = 5 * 365 * 86400

local function bump(name, by, day)
  if by == 0 then return end
  -- Formatted once for both commands: Redis formats a number argument ('%.17g') at each call.
  local text = string.format('%d', by)
  redis.call('INCRBY', P .. 'stat:' .. name, text)
  local daily = P .. 'stat:' .. name .. ':' .. day
  -- Counts only grow, so the key is new exactly when it now holds `by`: the
  -- TTL is set once a day, not once a call.
  if redis.call('INCRBY', daily, text) == by then redis.call('EXPIRE', daily, STATS_TTL) end
end

local LIST_REWRITE_MAX = 4000
-- Constant list bounds go to redis.call as strings: Redis formats a number argument
-- with "%.17g" (a thousand instructions or more), a string it takes as it is.
local REF_MIN = 1024 -- src/tick/passes/ack-refs.ts names jobs past the same size

-- '#' .. the SHA-1 of a job's bytes, or '~' .. the SHA-1 of its text as read.
local function is_ref(name)
  return #name == 41 and string.find(name, '^[#~]%x+$') ~= nil
end

-- How `wanted` names `job`: by reference when it holds one for it, else by
-- its text. `refs`: the markers ('#', '~') some wanted names carry.
local function name_of(job, wanted, refs)
  if not refs then return job end
  -- A job shaped like a reference is named by '#' .. its SHA-1, never by its
  -- text (ack-refs.ts), even in an ack of '~' names only: its text may be
  -- another job's '~' name, which would take it out in that job's place.
  local shaped = is_ref(job)
  if shaped or (refs['#'] and #job > REF_MIN) then
    local ref = '#' .. redis.sha1hex(job)
    if shaped or wanted[ref] then return ref end
  end
  if refs['~'] and string.find(job, '[\128-\255]') then
    local ref = '~' .. redis.sha1hex(utf8_as_read(job))
    if wanted[ref] then return ref end
  end
  return job
end

-- The tail fast path. A tick's oldest jobs sit at the right end of its list
-- and most acks name exactly those (a batch run and settled whole), while the
-- jobs fetched ahead sit to their left: reading only the `n` oldest, and
-- cutting them with one LTRIM when they are the jobs named, spares reading
-- and rewriting the jobs ahead. It removes what the whole-list pass would:
-- that pass, too, takes named jobs oldest first, and when the `n` oldest are
-- all named it takes exactly them. Anything else (a job still running older
-- than one acked, a job missing) takes the whole-list pass.

-- Whether `text` (successes joined, lib/common/joined.lua) holds exactly
-- `tail`'s jobs (LRANGE's order: newest first), oldest first: each found in
-- place by a plain find, so no job's text is cut out of it as a new string
-- (Redis' Lua hashes every byte of each string it makes).
local function joined_tail(text, tail)
  local at, find, byte = 1, string.find, string.byte
  for k = #tail, 1, -1 do
    local job = tail[k]
    -- A job shaped like a reference is never named by its text (name_of):
    -- its text in an ack is another job's reference.
    if #job == 41 and is_ref(job) then return false end
    if find(text, job, at, true) ~= at then return false end
    at = at + #job
    if k > 1 then
      if byte(text, at) ~= 30 then return false end
      at = at + 1
    end
  end
  return at == #text + 1
end

-- Takes multiset `wanted` (name → count, `n` names in all) out of `tail`,
-- the list's `n` oldest jobs, if they are exactly those; `wanted` is left as
-- it was when they are not. Returns found and texts as take_out does, or nil.
local function take_tail(tail, wanted, n, refs)
  if #tail ~= n then return nil end
  local found, texts = {}, {}
  for k = n, 1, -1 do
    local job = tail[k]
    local name = name_of(job, wanted, refs)
    local want = wanted[name]
    if not want or want == 0 then
      -- Not named: give back what was counted.
      for taken_name, count in pairs(found) do wanted[taken_name] = wanted[taken_name] + count end
      return nil
    end
    wanted[name] = want - 1
    found[name] = (found[name] or 0) + 1
    texts[name] = job
  end
  return found, texts
end

-- Whether joined successes may hold a flow job: each job opens the value or follows a separator,
-- and a flow job opens with '{"t' (lib/flow/read.lua FLOW_HEAD): one search of the value. Only
-- the tail path asks it: the tick names by place no group holding such a job (by_place.applies).
local function is_flow_text(text)
  return (string.find(text, '^{"t') or string.find(text, '\30{"t', 1, true)) ~= nil
end

-- The ack by place's functions, in one table (step's main function is near Lua's 200 locals).
local by_place = {}

-- Whether `name`, one of joined `text`'s, is there whole (after a separator or first, before one or last).
function by_place.names_whole(text, name)
  local at = string.find(text, name, 1, true)
  if not at then return false end
  local after = at + #name
  return (at == 1 or string.byte(text, at - 1) == 30) and (after == #text + 1 or string.byte(text, after) == 30)
end

-- The ack by place: a group of successes that are all of one fetched group (src/tick/passes/ack.ts),
-- named by its place (lib/tick/fetch-jobs.lua: how many jobs the list took before it). The lease
-- hash counts the jobs the list took (`pushed:QUEUE`) and those cut from its tail by place
-- (`cut:QUEUE`); only a fetch adds to a tick's list (the whole-list pass below writes back fewer),
-- so while every job taken out was cut by place the list holds exactly the jobs from `cut` to
-- `pushed`, oldest at its tail, and its length is their difference; any other removal (a job
-- acked by text, a resurrection, finish) leaves the length short of it for good, until a fetch
-- finds the list empty and counts it again from there. When the counts agree and the group is the
-- oldest (its place is `cut`), its `count` jobs are the list's `count` oldest: they are cut with
-- one LTRIM, no job read nor matched. A group sent with its joined value has its oldest and newest
-- listed jobs checked in it too (a group the tick named wrongly is then settled by text); one named
-- by place alone has no text to check: the counts and the place, both Redis' own, say which jobs
-- it is. Else (false) the text path settles them, or, named by place alone, they stay listed and
-- are answered missed (the tick sends them again by text). Run twice, the second run finds `cut`
-- past the place and does the same, which settles none of them. The lease hash is the tick's own:
-- a lost lease has no counts.
-- The list's counts (lease, list, pushed, cut) when they agree with its length, else nil.
function by_place.counts(tick, queue)
  local lease, list = P .. 'tick:' .. tick, inproc_key(tick, queue)
  local row = redis.call('HMGET', lease, 'pushed:' .. queue, 'cut:' .. queue)
  local pushed, at = tonumber(row[1]), tonumber(row[2])
  if not (pushed and at) or redis.call('LLEN', list) ~= pushed - at then return nil end
  return lease, list, pushed, at
end

-- A group's place as the tick sends it: "PLACE" beside its jobs' joined value, or "PLACE+COUNT" with
-- no job (named by place alone: src/tick/passes/ack.ts). Sets `place`, and for the second form
-- `count` and `unsent`. An error, before anything is written, for a group named both ways.
function by_place.read(group, place)
  local plus = string.find(place, '+', 1, true)
  if not plus then
    group.place = tonumber(place)
    return
  end
  if group.count ~= 0 then error('ack: a group named by place alone carries no job, got ' .. group.count) end
  group.place, group.count = tonumber(string.sub(place, 1, plus - 1)), tonumber(string.sub(place, plus + 1))
  if not (group.place and group.count) then error('ack: a place alone is "PLACE+COUNT", got ' .. place) end
  group.unsent = true
end

-- What joined `text`'s jobs open with, in one look at the value (each job opens it or follows a
-- separator; plain searches, which jump from separator to separator): whether one may be a flow
-- job ('{"t': lib/flow/read.lua FLOW_HEAD), and whether one is named by reference ('#' or '~' and
-- a SHA-1), whose text is not in the value and may be a flow job's (a large one, or one not valid
-- UTF-8). A flow job's success must free its slot and send its key's parked follower on.
function by_place.heads(text)
  local find, first = string.find, string.byte(text, 1)
  local flow = (first == 123 and find(text, '^{"t') ~= nil) or find(text, '\30{"t', 1, true) ~= nil
  local ref = first == 35 or first == 126 or find(text, '\30#', 1, true) ~= nil or find(text, '\30~', 1, true) ~= nil
  return flow, ref
end

-- Whether `group` may be cut by its place: it names one, the call needs no text of its jobs after
-- the cut (`bare`: the lease held, no cancel mark, per-job count hash or kept result), no other
-- entry of the call names its queue (`only`), and none of its jobs is a flow job or named by
-- reference: told by its joined value (heads, kept in `flow` for the tail path), or for a group
-- named by place alone by the tick, which names so no group holding one (ack.ts plainJobs).
function by_place.applies(group, bare, only)
  if not (group.place and bare and only and group.count > 0) then return false end
  if group.unsent then return true end
  if not group.text then return false end
  local flow, ref = by_place.heads(group.text)
  group.flow = flow
  return not (flow or ref)
end

-- Cuts `group` (by_place.applies) by its place when the counts agree; whether it did.
function by_place.cut(tick, queue, group)
  local place, count, text = group.place, group.count, group.text
  local lease, list, pushed, at = by_place.counts(tick, queue)
  if not lease or at ~= place or pushed - at < count then return false end
  local whole = by_place.names_whole
  if text and (not whole(text, redis.call('LINDEX', list, -count)) or not whole(text, redis.call('LINDEX', list, '-1'))) then
    return false
  end
  redis.call('HSET', lease, 'cut:' .. queue, string.format('%d', at + count))
  return true
end

-- Whether `group`, named by place with its jobs' text, is wholly cut already (`cut:QUEUE` at or past
-- its end): `cut` moves only by cutting the list's oldest jobs while the counts agree (by_place.cut,
-- cut_by_text), or is set to a fetch's place when it finds the list empty, and places only grow,
-- so no job placed below it is listed. Its entries are then answered missed and it never takes the
-- text path, which would take another copy of an identical text (a job without a jid) for it: a
-- given-up step that ran late may have cut it by place alone, and finish names it again
-- (src/tick/given-up.ts). Run twice, the same. A lost lease has no `cut`: the text path, as before.
function by_place.gone(tick, queue, group)
  local at = tonumber(redis.call('HGET', P .. 'tick:' .. tick, 'cut:' .. queue))
  return at ~= nil and at >= group.place + group.count
end

-- A cut of the list's `count` oldest jobs by text (a group's tail matched): while the counts
-- agree, they are the jobs from `cut` on, and the count moves on with them, so that the groups
-- behind may be acked by place (the first group of a tick is often acked in parts).
function by_place.cut_by_text(tick, queue, count)
  local lease, _, _, at = by_place.counts(tick, queue)
  if lease then redis.call('HSET', lease, 'cut:' .. queue, string.format('%d', at + count)) end
end

-- Takes the jobs of multiset `wanted` (name → count, `n` names in all) out
-- of `list`; returns a table name → how many were found (and removed), and
-- name → job text. `refs`: nil when no name is a reference, else the markers
-- they carry. `tail`: the list's `n` oldest jobs when already read (LRANGE -n -1).
local function take_out(list, wanted, refs, n, tail)
  tail = tail or redis.call('LRANGE', list, -n, '-1')
  local found, texts = take_tail(tail, wanted, n, refs)
  if found then
    redis.call('LTRIM', list, '0', -n - 1)
    return found, texts
  end
  found, texts = {}, {}
  if redis.call('LLEN', list) > LIST_REWRITE_MAX then
    -- A '~' name may stand for jobs of different bytes, each read as the same
    -- text: its `count` oldest copies, whatever their bytes, are picked from
    -- the tail up, and each stored text loses as many of its oldest copies
    -- (LREM -k). Taking the newest of one text first would take a copy a step
    -- in the other lane fetched ahead, whose replay reads its jobs back by
    -- position (lib/tick/replay-call.lua), and hand it a job the tick holds.
    local alike = {}
    if refs then
      local all = redis.call('LRANGE', list, 0, -1)
      for k = #all, 1, -1 do
        local job = all[k]
        local name = name_of(job, wanted, refs)
        texts[name] = texts[name] or job
        if name ~= job and string.byte(name) == 126 then -- '~'
          local a = alike[name] or { picked = 0, of = {} }
          alike[name] = a
          if a.picked < wanted[name] then
            a.picked = a.picked + 1
            if not a.of[job] then a[#a + 1] = job end
            a.of[job] = (a.of[job] or 0) + 1
          end
        end
      end
    end
    for name, count in pairs(wanted) do
      local job = texts[name] or name
      local a = alike[name]
      if is_ref(name) and not texts[name] then found[name] = 0
      elseif a then
        local removed = 0
        for _, text in ipairs(a) do removed = removed + redis.call('LREM', list, -a.of[text], text) end
        found[name] = removed
      else
        found[name] = redis.call('LREM', list, -count, job)
      end
      texts[name] = job
    end
    return found, texts
  end
  -- The jobs ahead of the tail (none when the tail is the whole list), then the tail.
  local items = #tail < n and tail or redis.call('LRANGE', list, 0, -n - 1)
  if #tail == n then
    for k = 1, n do items[#items + 1] = tail[k] end
  end
  local kept = {}
  for k = #items, 1, -1 do
    local job = items[k]
    local name = name_of(job, wanted, refs)
    local want = wanted[name]
    if want and want > 0 then
      wanted[name] = want - 1
      found[name] = (found[name] or 0) + 1
      texts[name] = job
    else
      kept[#kept + 1] = job
    end
  end
  if #kept < #items then
    redis.call('DEL', list)
    -- kept runs right to left: LPUSH in that order restores the list
    if #kept > 0 then redis.call('LPUSH', list, unpack(kept)) end
  end
  return found, texts
end

-- The updated text of a failed job named by reference: `patch` is a JSON
-- array of field name, value as JSON text, name, value…, set in order as
-- the client would have spliced them; an empty first name asks for the
-- entry of a job that is not a JSON object, with the reason next.
local function patched(job, patch, now_sec)
  local fields = cjson.decode(patch)
  if fields[1] == '' then return unroutable_entry(job, fields[2], now_sec) end
  local text = job
  for k = 1, #fields, 2 do
    text = with_field(text, fields[k], fields[k + 1])
    if not text then return unroutable_entry(job, 'its error fields could not be set', now_sec) end
  end
  return text
end

-- A group's successes, from ARGV[i]: "j<n>" then one value, the n jobs joined
-- (lib/common/joined.lua: the client encodes one argument, not one a job), or
-- n then one value each (a job that holds the separator, or none). Returns
-- how many, the joined value (nil for the other form: then the jobs), and
-- the index after them. The joined value is split only when the tail fast
-- path (take_tail) does not settle it whole. (A field, not a local: lib/common/joined.lua.)
function joined.successes(i)
  local head = ARGV[i]
  local n = tonumber(head)
  if not n then return tonumber(string.sub(head, 2)), ARGV[i + 1], nil, i + 2 end
  local names = {}
  for k = 1, n do names[k] = ARGV[i + k] end
  return n, nil, names, i + 1 + n
end

-- The index just past the acks part that starts at ARGV[i]: its successes,
-- its others, the results entries their count announces, and the metrics
-- entries (7 a group, then 3 per other entry).
local function ack_args_end(i)
  for _ = 1, tonumber(ARGV[i]) do i = i + 3 + (tonumber(ARGV[i + 3]) or 1) end
  local count_arg, metrics = metrics_header(ARGV[i + 1])
  local n, results = results_header(count_arg)
  local after = i + 2 + 5 * n + (results and 5 * results.m or 0)
  return after + (metrics and 7 * metrics.groups + 3 * n or 0)
end

-- Reads, from ARGV[i]: the successes grouped by queue (n queues, then for
-- each: queue, the place of the fetched group they are, all of it, or '' (by_place.read), then
-- its jobs as joined.successes reads them, none for a group named by place alone), then the other
-- entries (n, then n groups of kind, queue, job, new job, delay seconds).
-- Successes are most entries and carry no more than their text: the client
-- encodes far less.
-- Returns the index after them, the number of dead-set evictions, and the
-- numbers (from 1, successes first) of the entries this call did not settle: no longer
-- listed, or of a group named by place alone that it could not cut so (all of that group's,
-- which the tick sends again by text); the tick fires no event for those; then the
-- numbers of the entries settled as cancelled, and the tick's cancel marks
-- still standing (lib/cancel/read-cancel-marks.lua; nil for none), which the
-- ordered ack (lib/ordered/ack-ids.lua) reads next; last, whether any of the
-- per-job count hashes may exist after it (false: none did before and it
-- added none; nil for an ack of no entries, which read nothing), which spares the fetch of the
-- same call its own EXISTS.
local function ack(tick, i, now_ms_value, dead_max, dead_max_age, held, marked)
  local now_sec = now_ms_value / 1000
  local counts, interruptions, suspects, doubts = P .. 'resurrections', P .. 'interruptions', P .. 'suspects', P .. 'doubts'
  -- Whether any per-job count hash exists, read below only for an ack with entries: an ack of none
  -- (an ordered-only tick's finish) makes no call, and answers nil (unknown: step's fetch reads it).
  local counted
  local function forget(job)
    redis.call('HDEL', counts, job)
    redis.call('HDEL', interruptions, job)
    redis.call('HDEL', suspects, job)
    redis.call('HDEL', doubts, job)
  end
  local processed, failed, died = 0, 0, false
  local entry, missed = 0, {}
  local marks, cancelled = nil, {}
  if marked then marks = cancel_marks(tick) end
  -- Settles a job taken out of the list as cancelled, by its mark or its entry.
  local function cancel(job, jid)
    if jid then
      forget_mark(tick, jid)
      marks[jid] = nil
    end
    if counted then forget(job) end
    if is_flow(job) then flow().settle(tick, job, 'x', held) end
    record_cancelled(job, 'running', now_ms_value)
    cancelled[#cancelled + 1] = entry
  end

  -- Each group: { queue, jobs named, and when the tail fast path settles it whole, the tail read }.
  local successes = {}
  local wanted, wanted_n, refs = {}, {}, nil
  local function want(queue, name)
    local w = wanted[queue]
    if not w then
      w = {}
      wanted[queue] = w
    end
    w[name] = (w[name] or 0) + 1
    wanted_n[queue] = (wanted_n[queue] or 0) + 1
    if is_ref(name) then
      refs = refs or {}
      refs[string.sub(name, 1, 1)] = true
    end
  end
  local groups_in = {}
  for _ = 1, tonumber(ARGV[i]) do
    local queue, place = ARGV[i + 1], ARGV[i + 2]
    local count, text, names, after = joined.successes(i + 3)
    local group = { queue, names, count = count, text = text }
    if place ~= '' then by_place.read(group, place) end
    successes[#successes + 1] = group
    groups_in[queue] = (groups_in[queue] or 0) + 1
    i = after - 1
  end
  i = i + 1
  local count_arg, metrics = metrics_header(ARGV[i])
  local n, results = results_header(count_arg)
  -- Per other entry, its outcome and queue: only the metrics section reads them.
  local kinds, entry_queues = metrics and {} or nil, metrics and {} or nil
  local settled = results and {} or nil
  i = i + 1
  for k = 0, n - 1 do
    local queue = ARGV[i + k * 5 + 1]
    groups_in[queue] = (groups_in[queue] or 0) + 1
  end
  if #successes > 0 or n > 0 then counted = redis.call('EXISTS', counts, interruptions, suspects, doubts) > 0 end

  -- A queue's joined successes and nothing else: its tail is read first, and when it holds
  -- exactly them, oldest first, it is cut whole (take_tail) and the joined value never split.
  -- Only reads until every value is parsed: a malformed one (joined.split) writes nothing.
  local tails, cut, placed = {}, {}, {}
  local bare = held and not marks and not counted and not settled
  for _, group in ipairs(successes) do
    local queue, count, text = group[1], group.count, group.text
    if by_place.applies(group, bare, groups_in[queue] == 1) and by_place.cut(tick, queue, group) then
      group.placed, cut[queue], placed[queue] = true, count, true
    elseif group.unsent then
      -- Named by place alone and not cut so: left listed, its entries answered missed below.
    elseif group.place and count > 0 and by_place.gone(tick, queue, group) then
      group.gone = true
    elseif text and count > 0 and groups_in[queue] == 1 then
      local tail = redis.call('LRANGE', inproc_key(tick, queue), -count, '-1')
      if #tail == count and joined_tail(text, tail) then
        group.tail, cut[queue] = tail, count
      else
        tails[queue] = tail
      end
    end
    if not group.tail and not group.placed and not group.unsent and not group.gone then
      if text then group[2] = joined.split(text, count, 'ack') end
      for k = 1, #group[2] do want(queue, group[2][k]) end
    end
  end
  for k = 0, n - 1 do want(ARGV[i + k * 5 + 1], ARGV[i + k * 5 + 2]) end

  for queue, count in pairs(cut) do
    if held and not placed[queue] then by_place.cut_by_text(tick, queue, count) end
    redis.call('LTRIM', inproc_key(tick, queue), '0', -count - 1)
  end
  local found, texts = {}, {}
  for queue, jobs in pairs(wanted) do
    found[queue], texts[queue] = take_out(inproc_key(tick, queue), jobs, refs, wanted_n[queue], tails[queue])
  end
  -- The text of the job `name` names if this call took it out, else nil.
  local function taken(queue, name)
    local f = found[queue]
    local left = f[name]
    if not left or left == 0 then return nil end
    f[name] = left - 1
    return texts[queue][name]
  end

  -- Flow jobs that succeeded, settled at once (F.settle_succeeded).
  local flows, nflows, byte = {}, 0, string.byte
  for _, group in ipairs(successes) do
    local queue, names, tail = group[1], group[2], group.tail
    -- A group cut whole is its joined value's jobs, each opening the value or following a
    -- separator, and a flow job opens with '{"t' (lib/flow/read.lua FLOW_HEAD): when the value
    -- holds that nowhere, none is one, told by one search of the value, not a call a job.
    -- (by_place.applies may have told it already.)
    local flow = group.flow
    if tail and flow == nil then flow = is_flow_text(group.text) end
    local plain = tail and not flow
    if group.placed then
      -- A group cut by place: counted, no job of it read.
      entry, processed = entry + group.count, processed + group.count
    elseif group.unsent or group.gone then
      -- Named by place alone, not cut: none settled, each answered missed (the tick sends them by text).
      -- Or cut already (by_place.gone): none listed, each answered missed.
      for _ = 1, group.count do
        entry = entry + 1
        missed[#missed + 1] = entry
      end
    end
    -- A group cut whole: its jobs are its tail's, oldest (last) first.
    for k = 1, (group.placed or group.unsent or group.gone) and 0 or tail and #tail or #names do
      entry = entry + 1
      local job = tail and tail[#tail - k + 1] or taken(queue, names[k])
      local marked = marks and job and marked_jid(marks, job)
      if marked then
        cancel(job, marked)
      elseif job then
        if settled then settled[entry] = job end
        if counted then forget(job) end
        -- Most jobs are plain: one byte tells them (lib/flow/read.lua FLOW_HEAD_LETTER) before a call.
        if not plain and byte(job, 3) == FLOW_HEAD_LETTER and is_flow(job) then
          nflows = nflows + 1
          flows[nflows] = job
        end
        processed = processed + 1
      else
        missed[#missed + 1] = entry
      end
    end
  end
  if nflows > 0 then flow().settle_succeeded(tick, flows, nflows, held) end

  for _ = 1, n do
    local kind, queue, name, updated, delay = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
    i = i + 5
    entry = entry + 1
    local job = taken(queue, name)
    if kinds then kinds[entry], entry_queues[entry] = kind, queue end
    local marked = job and marked_jid(marks, job)
    if not job then
      missed[#missed + 1] = entry
    elseif marked or kind == 'c' then
      cancel(job, marked)
    else
      if settled then settled[entry] = job end
      if (kind == 'r' or kind == 'd' or kind == 'u') and is_ref(name) then updated = patched(job, updated, now_sec) end
      if is_flow(job) then
        -- A stop in doubt is a put-back to flow control, as 'q'.
        flow().settle(tick, job, kind == 'l' and 'q' or kind, held)
        -- Put back: its parked followers go behind it, so it runs first.
        if kind == 'q' or kind == 'i' or kind == 'l' then flow_lib.flush() end
      end
      if kind == 'q' or kind == 'i' or kind == 'l' then
        order.push(queue, job, true)
        if kind == 'i' then redis.call('HINCRBY', interruptions, job, 1) end
        if kind == 'l' then redis.call('HINCRBY', doubts, job, 1) end
        if kind == 'i' or kind == 'l' then counted = true end
      else
        if counted then forget(job) end
        if kind ~= 'u' then
          processed = processed + 1
          failed = failed + 1
        end
        if kind == 'r' then
          redis.call('ZADD', P .. 'retry', now_sec + tonumber(delay), updated)
        elseif kind == 'd' or kind == 'u' then
          died = true
          redis.call('ZADD', P .. 'dead', now_sec, updated)
        end
      end
    end
  end
  if flow_lib then flow_lib.flush() end
  if results then i = keep_results(results, i, settled, now_ms_value) end
  if metrics then i = record_runs(metrics, i, n, kinds, entry_queues, missed, now_ms_value, cancelled) end
  local day = day_of(now_sec)
  bump('processed', processed, day)
  bump('failed', failed, day)
  local evicted = 0
  if died then evicted = trim_dead(now_sec, dead_max, dead_max_age) end
  return i, evicted, missed, cancelled, marks, counted
end
