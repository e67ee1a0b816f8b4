-- Metrics of ordered runs (src/ordered/, src/metrics/): the optional trailer
-- of an ordered ack's others (lib/ordered/ack-ids.lua), announced as
-- lib/metrics/record-runs.lua's is, " mE RETENTION" on their count. E
-- entries, one per success in ack order (each name's ids in turn), each its
-- run time and its start (Redis ms); then the same two per other entry, ''
-- when it did not run. An ordered name counts as a job name does ("j|NAME|…":
-- runs, failures, run times, retried, dead); its wait, from the id's due time
-- (its token's, lib/ordered/state.lua) to the run's start, goes under
-- "o|NAME|…" (an ordered name has no queue: its ids wait in their own set).
-- Only entries whose token this ack held count, so a replay finds its tokens
-- gone and counts nothing twice. Needs lib/metrics/record-runs.lua.
-- @include lib/common/prefix-keys.lua
-- @include lib/metrics/record-runs.lua

-- `runs`: per ack entry, successes first, three slots: name, due (a number or
-- its text; false: not held), kind ('s' succeeded, else lib/ordered/ack-ids.lua's
-- codes); the trailer's entries start at ARGV[at], two per ack entry. The batch's
-- counts are summed per field first, as lib/metrics/record-runs.lua does for
-- plain jobs: one HINCRBY per field and hash, not ten per execution. A success's
-- two entries are always numbers, made numbers by arithmetic (one conversion;
-- tonumber converts a string twice); another entry's may be ''.
local function record_ordered_runs(runs, at, retention, now_ms_value)
  local minute_adds, total_adds, fields = {}, {}, {}
  local function add(field, by, both)
    if total_adds[field] == nil then
      total_adds[field] = 0
      fields[#fields + 1] = field
    end
    total_adds[field] = total_adds[field] + by
    if both then minute_adds[field] = (minute_adds[field] or 0) + by end
  end
  -- Each name's field names, and each bucket's, made once a call: a run costs no
  -- concatenation (a bucket's number made text each time cost a float formatting).
  local of_name = {}
  local function named(name)
    local f = of_name[name]
    if not f then
      local j, o = 'j|' .. name .. '|', 'o|' .. name .. '|'
      f = { r = j .. 'r', ms = j .. 'ms', f = j .. 'f', retried = j .. 'retried', dead = j .. 'dead', wait = o .. 'ms', jb = {}, ob = {}, j = j, o = o }
      of_name[name] = f
    end
    return f
  end
  local function bucket(f, side, prefix, ms)
    local b = metric_bucket(ms)
    local field = f[side][b]
    if not field then
      field = prefix .. 'b' .. b
      f[side][b] = field
    end
    return field
  end
  for e = 1, #runs / 3 do
    local name, due, kind = runs[3 * e - 2], runs[3 * e - 1], runs[3 * e]
    local arg = at + 2 * (e - 1)
    local ran, started
    if kind == 's' then
      ran, started = ARGV[arg] + 0, ARGV[arg + 1] + 0
    else
      ran, started = tonumber(ARGV[arg]), tonumber(ARGV[arg + 1])
    end
    if due and ran and (kind == 's' or kind == 'r' or kind == 'd') then
      due = due + 0
      local f = named(name)
      add(f.r, 1, true)
      add(f.ms, ran, true)
      add(bucket(f, 'jb', f.j, ran), 1, true)
      if kind ~= 's' then
        add(f.f, 1, true)
        add(kind == 'r' and f.retried or f.dead, 1, false)
      end
      if started then
        local waited = math.max(0, math.floor(started - due))
        add(f.wait, waited, true)
        add(bucket(f, 'ob', f.o, waited), 1, true)
      end
    end
  end
  if #fields == 0 then return end
  local minute = P .. 'metrics:' .. math.floor(now_ms_value / 60000)
  local total = P .. 'metrics:total'
  for _, field in ipairs(fields) do
    if minute_adds[field] then redis.call('HINCRBY', minute, field, minute_adds[field]) end
    redis.call('HINCRBY', total, field, total_adds[field])
  end
  redis.call('EXPIRE', minute, retention)
end
