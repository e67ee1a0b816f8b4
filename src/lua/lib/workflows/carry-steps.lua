-- What a claim carries of a run's step records: every record, each result
-- only while a budget lasts (earliest steps first), so a claim's size does
-- not grow with the run's results. A record past the budget goes without its
-- result, with its stored size: the execution reads it when its replay
-- reaches the step (workflow_steps.lua). A tick keeps only the claimed runs'
-- ids and fences for a replay (wf_kept_claims) and reads the rest again
-- (wf_claims_again), so its lease holds no result either.
-- Needs run-state.lua.

-- Bytes of results carried whole: per run, and per call over all its runs.
local WF_CARRY_RUN_BYTES = 256 * 1024
local WF_CARRY_CALL_BYTES = 1024 * 1024
-- A record this small is kept in hand while the run's records are ordered.
local WF_SMALL_RECORD = 1024

-- A completed record without its result, or nil when it is carried whole
-- (no result to leave out, or cjson cannot read it: nested too deep). Every
-- writer puts the result last, after the small fields (status seq attempts
-- startedAt endedAt), so the text before `,"result":` is the rest; a record
-- written another way is decoded.
local function wf_without_result(text)
  local head = string.sub(text, 1, 256)
  if not string.find(head, '"status":"completed"', 1, true) then return nil end
  local at = string.find(head, ',"result":', 1, true)
  if at and not string.find(string.sub(head, 2, at - 1), '[{%[]') then return string.sub(text, 1, at - 1) .. '}' end
  local ok, record = pcall(cjson.decode, text)
  if not ok or type(record) ~= 'table' then return nil end
  record.result = nil
  return cjson.encode(record)
end

-- The run's records in step order, each { name, bytes, seq } with its text
-- when small, else its stub (nil: carried whole). Only small texts are kept
-- in hand: ordering a run's records holds no copy of its results.
local function wf_step_entries(steps)
  local entries = {}
  for _, name in ipairs(redis.call('HKEYS', steps)) do
    local text = redis.call('HGET', steps, name)
    local e = { name = name, bytes = #text }
    if #text <= WF_SMALL_RECORD then
      e.text = text
    else
      e.stub = wf_without_result(text)
      e.whole = e.stub == nil
    end
    e.seq = tonumber(string.match(e.stub or string.sub(text, 1, 256), '"seq":(%d+)')) or -1
    entries[#entries + 1] = e
  end
  table.sort(entries, function(a, b)
    if a.seq ~= b.seq then return a.seq < b.seq end
    return a.name < b.name
  end)
  return entries
end

-- The run's step records as a claim carries them: name, text, cut per step
-- (cut 0: the whole record; else the text lacks the result, and cut is the
-- stored record's size). Returns them and the bytes of whole records carried.
local function wf_carry_steps(id, budget)
  local steps = wf_key('steps', id)
  local flat, used = {}, 0
  for _, e in ipairs(wf_step_entries(steps)) do
    local n = #flat
    local stub
    if not e.whole and e.bytes > budget - used then stub = e.stub or wf_without_result(e.text) end
    if stub then
      flat[n + 1], flat[n + 2], flat[n + 3] = e.name, stub, e.bytes
    else
      used = used + e.bytes
      flat[n + 1], flat[n + 2], flat[n + 3] = e.name, e.text or redis.call('HGET', steps, e.name), 0
    end
  end
  return flat, used
end

-- A claimed run as the reply carries it: { id, name, input, fence, steps, key form }
-- (key form: the run's `ikey`, '1' for a run stored before it had one).
local function wf_claimed(id, fence, budget)
  local f = redis.call('HMGET', wf_key('run', id), 'name', 'input', 'ikey')
  local steps, used = wf_carry_steps(id, math.min(budget, WF_CARRY_RUN_BYTES))
  return { id, f[1] or '', f[2] or 'null', fence, steps, f[3] or '1' }, used
end

-- What a replay keeps of a call's claimed runs: their ids and fences.
local function wf_kept_claims(claimed)
  local kept = {}
  for k, run in ipairs(claimed) do kept[k] = { run[1], run[4] } end
  return kept
end

-- The claimed runs again, from what a replay kept: the same runs and fences.
local function wf_claims_again(kept)
  local claimed, left = {}, WF_CARRY_CALL_BYTES
  for k, run in ipairs(kept) do
    local used
    claimed[k], used = wf_claimed(run[1], run[2], left)
    left = left - used
  end
  return claimed
end
