-- What a claim carries of a run's step records: every record, each result
-- only while a budget lasts (earliest steps first), so a claim's size does
-- not grow with the run's results. A record past the budget goes without its
-- result, with its stored size: the execution reads it when its replay
-- reaches the step (workflow_steps.lua). A tick keeps only the claimed runs'
-- ids and fences for a replay (wf_carry.kept) and reads the rest again
-- (wf_carry.again), so its lease holds no result either.
-- @include lib/workflows/run-state.lua

-- One table, not a local per function: begin.lua's main chunk is near Lua's 200 locals.
-- Bytes of results carried whole: per run, and per call over all its runs.
local wf_carry = { RUN_BYTES = 256 * 1024, CALL_BYTES = 1024 * 1024 }

-- The run's records in step order, each { name, bytes, seq } and its text
-- when small, its record without result when big (nil: carried whole). A
-- big record's fields come from its `cut:STEP` entry (run-state.lua), so
-- ordering a run's records reads none of its results; a record the entry
-- does not describe (written by an older release) is read once, and its
-- entry written.
function wf_carry.entries(id)
  local steps, run = wf_key('steps', id), wf_key('run', id)
  local entries = {}
  for _, name in ipairs(redis.call('HKEYS', steps)) do
    local e = { name = name, bytes = redis.call('HSTRLEN', steps, name) }
    if e.bytes <= wf_records.SMALL then
      e.text = redis.call('HGET', steps, name)
    else
      local bytes, stub = string.match(redis.call('HGET', run, 'cut:' .. name) or '', '^(%d+):(.*)$')
      if tonumber(bytes) == e.bytes then
        e.stub = stub
      else
        e.stub = wf_records.keep_stub(id, name, redis.call('HGET', steps, name))
        e.whole = e.stub == nil
      end
    end
    e.seq = tonumber(string.match(e.text and string.sub(e.text, 1, 256) or e.stub or '', '"seq":(%d+)')) or -1
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
function wf_carry.steps(id, budget)
  local steps = wf_key('steps', id)
  local flat, used = {}, 0
  for _, e in ipairs(wf_carry.entries(id)) do
    local n = #flat
    local stub
    if not e.whole and e.bytes > budget - used then stub = e.stub or wf_records.without_result(e.text) end
    if stub then
      flat[n + 1], flat[n + 2], flat[n + 3] = e.name, stub, e.bytes
    else
      used = used + e.bytes
      flat[n + 1], flat[n + 2], flat[n + 3] = e.name, e.text or redis.call('HGET', steps, e.name), 0
    end
  end
  return flat, used
end

-- A claimed run as the reply carries it: { id, name, input, fence, steps, key form, version }
-- (key form: the run's `ikey`, '1' for a run stored before it had one; version: the workflow
-- version it started on, '1' for a run stored before versions). `read`: the run's status, name, input,
-- ikey and version as the caller just read them (else read here).
function wf_carry.claimed(id, fence, budget, read)
  local f = read or redis.call('HMGET', wf_key('run', id), 'status', 'name', 'input', 'ikey', 'version')
  local steps, used = wf_carry.steps(id, math.min(budget, wf_carry.RUN_BYTES))
  return { id, f[2] or '', f[3] or 'null', fence, steps, f[4] or '1', f[5] or '1' }, used
end

-- What a replay keeps of a call's claimed runs: their ids and fences.
function wf_carry.kept(claimed)
  local kept = {}
  for k, run in ipairs(claimed) do kept[k] = { run[1], run[4] } end
  return kept
end

-- The claimed runs again, from what a replay kept: the same runs and fences.
function wf_carry.again(kept)
  local claimed, left = {}, wf_carry.CALL_BYTES
  for k, run in ipairs(kept) do
    local used
    claimed[k], used = wf_carry.claimed(run[1], run[2], left)
    left = left - used
  end
  return claimed
end
