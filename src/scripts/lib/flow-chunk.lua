-- The fetch's first step on a chunk of jobs (lib/flow-admit.lua): what each
-- job is, read once. Nothing is written here.

local function flow_chunk(F)
  local find = string.find

  -- Every unique key the chunk names gets a number, so the holders of all
  -- of them are read with one MGET (F.view) and looked up by number.
  local function number_key(chunk, key)
    local k = chunk.index[key]
    if not k then
      k = #chunk.singles + 1
      chunk.singles[k], chunk.index[key] = key, k
    end
    return k
  end

  -- A job of `text` as the next step decides on it: `kind` is 'plain' (no
  -- descriptor), 'malformed' (a descriptor that cannot be read), 'unique'
  -- (shape `one`: `slot` numbers its key) or 'other' (read whole into
  -- `whole` and `jid`).
  local function classify(chunk, text)
    if not is_flow(text) then return { kind = 'plain', text = text } end
    local shape, keys, jid = F.descriptor(text)
    if shape and shape.one and keys ~= '' then
      return { kind = 'unique', text = text, shape = shape, slot = number_key(chunk, keys) }
    end
    local whole = shape and not shape.one and F.read(text)
    if not whole then return { kind = 'malformed', text = text } end
    for _, lock in ipairs(whole.locks) do
      if lock.unique then number_key(chunk, lock.key) end
    end
    return { kind = 'other', text = text, shape = shape, whole = whole, jid = jid }
  end

  -- The jobs of `items` (LRANGE order, newest first), oldest first, each
  -- classified, and the unique keys they name.
  function F.classify_chunk(items)
    local chunk = { jobs = {}, singles = {}, index = {} }
    local n = #items
    -- bench/flow.ts (b) cold: a run of one key's duplicates is told by the
    -- text its first job opens with, one find a job instead of a decode.
    local run_head, run_job
    for at = 1, n do
      local text = items[n + 1 - at]
      local job
      if run_head and find(text, run_head, 1, true) == 1 then
        job = { kind = 'unique', text = text, shape = run_job.shape, slot = run_job.slot }
      else
        job = classify(chunk, text)
        run_head = job.kind == 'unique' and F.head(job.shape, chunk.singles[job.slot]) or nil
        run_job = job
      end
      chunk.jobs[at] = job
    end
    return chunk
  end
end
