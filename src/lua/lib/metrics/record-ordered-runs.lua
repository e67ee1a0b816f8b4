-- Metrics of ordered runs (src/ordered/, src/metrics/): the optional trailer
-- of an ordered ack's others (lib/ordered/ack-ids.lua), announced as
-- lib/metrics/record-runs.lua's is, " mE RETENTION" on their count. The
-- successes' run times and starts (Redis ms), in ack order (each name's ids
-- in turn), as E entries packed (lib/common/packed.lua), each a run of
-- successes that measured the same: how many, run time, start; then two per
-- other entry, its run time and start, '' when it did not run. An ordered name counts as a job name does ("j|NAME|…":
-- runs, failures, run times, retried, dead); its wait, from the id's due time
-- (its token's, lib/ordered/state.lua) to the run's start, goes under
-- "o|NAME|…" (an ordered name has no queue: its ids wait in their own set).
-- Only entries whose token this ack held count, so a replay finds its tokens
-- gone and counts nothing twice. Needs lib/metrics/record-runs.lua.
-- @include lib/common/prefix-keys.lua
-- @include lib/metrics/record-runs.lua

-- `tallies`: the successes, counted by text as they were settled (ordered_tally below): per name
-- (`tallies.by_name`; `tallies.names` in the order names first ran, apart, so any name is a key) its runs by run time's text and by the pair
-- (start's text, due's text). Only a success this ack held (not cancelled) is tallied. A batch's
-- runs share a few run times and starts (a ms holds many) and dues (one enqueue call's ids share
-- one), so the numbers, waits and buckets are worked out once a distinct text, not once a run: a
-- run costs two lookups and two counts (some 2,000 instructions a run less than three slots a run
-- and the arithmetic on each, bench/ordered-redis-instructions.ts). Sums are the same: HINCRBY
-- takes integers, and an integer times a count is the sum of that many.
-- `runs`: per other ack entry, three slots: name, due (a number or its text; false: not held),
-- kind (lib/ordered/ack-ids.lua's codes); their trailer entries start at ARGV[at], two each (the
-- successes' measures come packed before them, read into `tallies`). The batch's
-- counts are summed per name first, as lib/metrics/record-runs.lua does for
-- plain jobs: one HINCRBY per field and hash, not ten per execution. A run adds to
-- its name's counters in place (no call a counter), and a bucket is found once per
-- distinct value a call. A success's two entries are always numbers; another
-- entry's may be ''.
local function record_ordered_runs(runs, at, retention, now_ms_value, tallies)
  -- Per name, in the order names first ran: its counters and its buckets' counts.
  local of_name, order, bucket_of = {}, {}, {}
  local function bucket(ms)
    local b = bucket_of[ms]
    if not b then
      b = metric_bucket(ms)
      bucket_of[ms] = b
    end
    return b
  end
  local function name_of(name)
    local f = of_name[name]
    if not f then
      f = { r = 0, ms = 0, f = 0, retried = 0, dead = 0, wait = 0, waits = 0, jb = {}, ob = {} }
      of_name[name] = f
      order[#order + 1] = name
    end
    return f
  end
  for _, name in ipairs(tallies and tallies.names or {}) do
    local t, f = tallies.by_name[name], name_of(name)
    for ran_text, n in pairs(t.ran) do
      local ran = ran_text + 0
      f.r, f.ms = f.r + n, f.ms + ran * n
      local b = bucket(ran)
      f.jb[b] = (f.jb[b] or 0) + n
    end
    for started_text, by_due in pairs(t.started) do
      local started = started_text + 0
      for due_text, n in pairs(by_due) do
        local waited = math.max(0, math.floor(started - due_text))
        f.wait, f.waits = f.wait + waited * n, f.waits + n
        local b = bucket(waited)
        f.ob[b] = (f.ob[b] or 0) + n
      end
    end
  end
  for e = 1, #runs / 3 do
    local name, due, kind = runs[3 * e - 2], runs[3 * e - 1], runs[3 * e]
    local arg = at + 2 * (e - 1)
    local ran, started = tonumber(ARGV[arg]), tonumber(ARGV[arg + 1])
    if due and ran and (kind == 'r' or kind == 'd') then
      local f = name_of(name)
      f.r, f.ms = f.r + 1, f.ms + ran
      local b = bucket(ran)
      f.jb[b] = (f.jb[b] or 0) + 1
      f.f = f.f + 1
      if kind == 'r' then f.retried = f.retried + 1 else f.dead = f.dead + 1 end
      if started then
        local waited = math.max(0, math.floor(started - due))
        f.wait, f.waits = f.wait + waited, f.waits + 1
        b = bucket(waited)
        f.ob[b] = (f.ob[b] or 0) + 1
      end
    end
  end
  if #order == 0 then return end
  local minute = P .. 'metrics:' .. math.floor(now_ms_value / 60000)
  local total = P .. 'metrics:total'
  -- The counts as '%d' texts: a number argument costs Redis a '%.17g' formatting, some 2,000
  -- instructions, where this costs a third of it (the sums are integers).
  local int = function(n) return string.format('%d', n) end
  -- Bucket numbers in ascending order: the same fields whatever order the runs came in.
  local function add_buckets(counts, prefix)
    for b = 1, #METRIC_BOUNDS + 1 do
      local n = counts[b]
      if n then
        n = int(n)
        redis.call('HINCRBY', minute, prefix .. b, n)
        redis.call('HINCRBY', total, prefix .. b, n)
      end
    end
  end
  for _, name in ipairs(order) do
    local f = of_name[name]
    local j, o = 'j|' .. name .. '|', 'o|' .. name .. '|'
    -- A sum of 0 adds nothing (no-op handlers run in 0 ms): no call, as lib/metrics/record-runs.lua
    -- skips one; a field never written reads as 0 (src/metrics/fields.ts).
    for _, field in ipairs({ 'r', 'ms', 'f' }) do
      if field == 'r' or f[field] ~= 0 then
        local n = int(f[field])
        redis.call('HINCRBY', minute, j .. field, n)
        redis.call('HINCRBY', total, j .. field, n)
      end
    end
    if f.retried > 0 then redis.call('HINCRBY', total, j .. 'retried', int(f.retried)) end
    if f.dead > 0 then redis.call('HINCRBY', total, j .. 'dead', int(f.dead)) end
    add_buckets(f.jb, j .. 'b')
    if f.waits > 0 then
      if f.wait ~= 0 then
        local wait = int(f.wait)
        redis.call('HINCRBY', minute, o .. 'ms', wait)
        redis.call('HINCRBY', total, o .. 'ms', wait)
      end
      add_buckets(f.ob, o .. 'b')
    end
  end
  redis.call('EXPIRE', minute, retention)
end

-- Tallies the successes of `name` settled by one ack (lib/ordered/ack-ids.lua settle_success):
-- `dues` their due texts by position, false or nil for a run not held or settled as cancelled; their
-- measures from `entries`, the trailer's packed runs as packed.section read them ({ V, at, last, left }:
-- the table, the next run's index in it, the index past the last, what the current run has left, and
-- its run time and start), read on from one name to the next. `tallies` starts empty: this adds its
-- tables (no new local of the script's: it holds at most 200). For record_ordered_runs.
local function ordered_tally(tallies, name, dues, count, entries)
  local by_name = tallies.by_name
  if not by_name then
    by_name = {}
    tallies.by_name, tallies.names = by_name, {}
  end
  local t = by_name[name]
  if not t then
    t = { ran = {}, started = {} }
    by_name[name] = t
    tallies.names[#tallies.names + 1] = name
  end
  local ran, started = t.ran, t.started
  local V = entries.V
  for k = 1, count do
    while entries.left == 0 and entries.at < entries.last do
      local at = entries.at
      entries.left, entries.ran, entries.started = V[at] + 0, V[at + 1], V[at + 2]
      entries.at = at + 3
    end
    -- Past the runs (a client that measured fewer successes than it acked): unmeasured.
    local measured = entries.left > 0
    if measured then entries.left = entries.left - 1 end
    local due = dues[k]
    if due and measured then
      local ran_text, started_text = entries.ran, entries.started
      ran[ran_text] = (ran[ran_text] or 0) + 1
      local by_due = started[started_text]
      if not by_due then
        by_due = {}
        started[started_text] = by_due
      end
      by_due[due] = (by_due[due] or 0) + 1
    end
  end
end
