-- The fetch's first step on a chunk of jobs (lib/flow/admit.lua): what each
-- job is, read once. Nothing is written here.
-- @include lib/flow/read.lua

local function flow_chunk(F)
  local find = string.find
  local PLAIN, MALFORMED = { kind = 'plain' }, { kind = 'malformed' }

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

  -- What the next step decides on, for the job `text`: `kind` is 'plain'
  -- (no descriptor), 'malformed' (a descriptor that cannot be read),
  -- 'unique' (shape `one`: `slot` numbers its key) or 'other' (read whole
  -- into `whole` and `jid`). Not to be changed: a run of duplicates shares one.
  local function classify(chunk, text)
    if not is_flow(text) then return PLAIN end
    local shape, keys, jid = F.descriptor(text)
    if shape and shape.one and keys ~= '' then
      return { kind = 'unique', shape = shape, slot = number_key(chunk, keys) }
    end
    local whole = shape and not shape.one and F.read(text)
    if not whole then return MALFORMED end
    for _, lock in ipairs(whole.locks) do
      if lock.unique then number_key(chunk, lock.key) end
    end
    return { kind = 'other', shape = shape, whole = whole, jid = jid }
  end

  -- The jobs of `items` (LRANGE order, newest first), oldest first: their
  -- texts and classes, and the unique keys they name.
  function F.classify_chunk(items)
    local chunk = { texts = {}, classes = {}, singles = {}, index = {} }
    local n = #items
    -- bench/flow.ts (b) cold: a run of one key's duplicates is told by the
    -- text its first job opens with, one find a job instead of a decode.
    local run_head, run_class
    for at = 1, n do
      local text = items[n + 1 - at]
      if not (run_head and find(text, run_head, 1, true) == 1) then
        run_class = classify(chunk, text)
        run_head = run_class.kind == 'unique' and F.head(run_class.shape, chunk.singles[run_class.slot]) or nil
      end
      chunk.texts[at], chunk.classes[at] = text, run_class
    end
    return chunk
  end
end
