-- Metrics of ordered runs (src/ordered/, src/metrics/): the optional trailer
-- of an ordered ack's others (lib/ordered/ack-ids.lua), announced as
-- lib/metrics/record-runs.lua's is, " mE RETENTION" on their count. The
-- successes' run times and starts (Redis ms), in ack order (each name's ids
-- in turn), as E entries packed (lib/common/packed.lua), each a run of
-- successes that measured the same: how many, run time, start; then two
-- per other entry, its run time and start, '' when it did not run. An
-- ordered name counts as a job name does ("j|NAME|…": runs, failures, run
-- times, retried, dead); its wait, from the id's due time (its token's,
-- lib/ordered/state.lua) to the run's start, goes under "o|NAME|…" (an
-- ordered name has no queue: its ids wait in their own set). Only entries
-- whose token this ack held count, so a replay finds its tokens gone and
-- counts nothing twice. Needs lib/metrics/record-runs.lua.
-- @include lib/common/prefix-keys.lua
-- @include lib/metrics/record-runs.lua

-- `runs`: per ack entry, successes first, three slots: name, due (a number or
-- its text; false: not held), kind ('s' succeeded, else lib/ordered/ack-ids.lua's
-- codes). `M`: the successes' entries as packed.section read them, the count at
-- M[m_at]; the other entries' two values each start at ARGV[at]. The batch's
-- counts are summed per name first, as lib/metrics/record-runs.lua does for
-- plain jobs: one HINCRBY per field and hash, not ten per execution. A run adds to
-- its name's counters in place (no call a counter: a generic adder cost some 300 VM
-- instructions a run, half of a 100-id ack's Lua), and a bucket is found once per
-- distinct value a call (no-op runs share a few). A success's measures are numbers
-- made numbers by arithmetic, once an entry (tonumber converts a string twice);
-- another entry's may be ''.
local function record_ordered_runs(runs, M, m_at, at, retention, now_ms_value)
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
  -- A due's number, read once a call: one enqueue call's ids share one, and a strtod of a ms
  -- text cost some 600 instructions where a lookup costs a tenth of one.
  local number_of = {}
  -- The successes' entry being read (its index in M, up to `last`) and the runs it has left.
  local entry, last, left, entry_ran, entry_started = m_at + 1, m_at + 3 * M[m_at], 0, nil, nil
  local other = at
  for e = 1, #runs / 3 do
    local name, due, kind = runs[3 * e - 2], runs[3 * e - 1], runs[3 * e]
    local ran, started
    if kind == 's' then
      while left == 0 and entry < last do
        left, entry_ran, entry_started = M[entry] + 0, M[entry + 1] + 0, M[entry + 2] + 0
        entry = entry + 3
      end
      -- Past the entries (a client that measured fewer runs than it acked): unmeasured.
      if left > 0 then
        left = left - 1
        ran, started = entry_ran, entry_started
      end
      if due then
        local due_number = number_of[due]
        if not due_number then
          due_number = due + 0
          number_of[due] = due_number
        end
        due = due_number
      end
    else
      ran, started = tonumber(ARGV[other]), tonumber(ARGV[other + 1])
      other = other + 2
    end
    if due and ran and (kind == 's' or kind == 'r' or kind == 'd') then
      local f = of_name[name]
      if not f then
        f = { r = 0, ms = 0, f = 0, retried = 0, dead = 0, wait = 0, waits = 0, jb = {}, ob = {} }
        of_name[name] = f
        order[#order + 1] = name
      end
      f.r, f.ms = f.r + 1, f.ms + ran
      local b = bucket(ran)
      f.jb[b] = (f.jb[b] or 0) + 1
      if kind ~= 's' then
        f.f = f.f + 1
        if kind == 'r' then f.retried = f.retried + 1 else f.dead = f.dead + 1 end
      end
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
  -- Bucket numbers in ascending order: the same fields whatever order the runs came in.
  local function add_buckets(counts, prefix)
    for b = 1, #METRIC_BOUNDS + 1 do
      local n = counts[b]
      if n then
        redis.call('HINCRBY', minute, prefix .. b, n)
        redis.call('HINCRBY', total, prefix .. b, n)
      end
    end
  end
  for _, name in ipairs(order) do
    local f = of_name[name]
    local j, o = 'j|' .. name .. '|', 'o|' .. name .. '|'
    for _, field in ipairs({ 'r', 'ms', 'f' }) do
      if field ~= 'f' or f.f > 0 then
        redis.call('HINCRBY', minute, j .. field, f[field])
        redis.call('HINCRBY', total, j .. field, f[field])
      end
    end
    if f.retried > 0 then redis.call('HINCRBY', total, j .. 'retried', f.retried) end
    if f.dead > 0 then redis.call('HINCRBY', total, j .. 'dead', f.dead) end
    add_buckets(f.jb, j .. 'b')
    if f.waits > 0 then
      redis.call('HINCRBY', minute, o .. 'ms', f.wait)
      redis.call('HINCRBY', total, o .. 'ms', f.wait)
      add_buckets(f.ob, o .. 'b')
    end
  end
  redis.call('EXPIRE', minute, retention)
end
