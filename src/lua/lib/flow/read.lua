-- Reading a flow job (lib/flow.lua): told apart from a plain job by its
-- first bytes; its descriptor is "SHAPE|KEYS|JID" (src/flow/descriptor.ts).
-- SHAPE ("NAME QUEUE [u] [l LIMIT]… [r LIMIT PERIOD_MS] [c] [w]") is the same
-- for every job of a name, queue and limits, so it is read once a call and
-- looked up after; KEYS are the job's keys, one a tag, in the tags' order.
-- A fetch and an ack read every flow job they meet, and a pattern match or
-- a table a job costs Redis' Lua a microsecond or more: a job of the
-- commonest shape (one key) costs two finds and two subs.

local FLOW_HEAD = '{"tickq_flow":"'

-- A plain job fails at its third byte; a flow job is matched in place (a
-- find makes no string, a sub would).
local function is_flow(job)
  return string.byte(job, 3) == 116 and string.find(job, FLOW_HEAD, 1, true) == 1
end

local function flow_read(F)
  local find, sub, gmatch = string.find, string.sub, string.gmatch

  -- A key of flow control: P.."flow:"..WHAT..":"..KEY.
  function F.key(what, key)
    return P .. 'flow:' .. what .. ':' .. key
  end

  function F.uri_decode(s)
    return (string.gsub(s, '%%(%x%x)', function(h) return string.char(tonumber(h, 16)) end))
  end

  -- A shape: {name, queue, locks = {{limit, unique, key index}}, rate =
  -- {limit, period, key index}, claim = key index, wait = key index, keys
  -- = how many, one = a single unique slot and nothing else}; not to be
  -- changed. `unique` (tag u): a slot of one holder, kept as a string
  -- (lib/flow-slots.lua); its key is u:…. false when the text is not a
  -- shape (a malformed job: lib/flow-admit.lua sends it to the dead set).
  local shapes = {}
  local function shape_of(text)
    local w = {}
    for word in gmatch(text, '%S+') do w[#w + 1] = word end
    if #w < 2 then return false end
    local t = { name = w[1], queue = w[2], locks = {}, keys = 0 }
    local i = 3
    while i <= #w do
      local tag, n, m = w[i], tonumber(w[i + 1]), tonumber(w[i + 2])
      t.keys = t.keys + 1
      if tag == 'u' then
        t.locks[#t.locks + 1] = { 1, true, t.keys }
        i = i + 1
      elseif tag == 'l' and n and n >= 1 then
        t.locks[#t.locks + 1] = { n, false, t.keys }
        i = i + 2
      elseif tag == 'r' and n and m and n >= 1 and m >= 1 then
        t.rate = { n, m, t.keys }
        i = i + 3
      elseif tag == 'c' or tag == 'w' then
        t[tag == 'c' and 'claim' or 'wait'] = t.keys
        i = i + 1
      else
        return false
      end
    end
    t.one = #t.locks == 1 and t.locks[1][2] and t.keys == 1
    return t
  end

  -- For the fetch's loop, which does what F.shape does in place: a call
  -- and its returns cost a job more than the finds. The shape of SHAPE's
  -- text (or false), kept.
  F.shapes = shapes
  function F.shape_of(text)
    local d = shape_of(text)
    shapes[text] = d
    return d
  end

  -- The job's shape and where its KEYS start and end (a, b: KEYS is
  -- sub(job, a, b)); nil when its descriptor is not "SHAPE|KEYS|JID".
  function F.shape(job)
    local s = find(job, '|', 16, true)
    local e = s and find(job, '|', s + 1, true)
    if not e then return nil end
    local text = sub(job, 16, s - 1)
    local d = shapes[text]
    if d == nil then d = F.shape_of(text) end
    if not d then return nil end
    return d, s + 1, e - 1
  end

  -- The job whole, for paths that read a job or two: {name, queue, locks =
  -- {{key, limit, unique}}, rate = {key, limit, period}, claim = key, wait
  -- = key}, and its jid (escaped); nil when the descriptor cannot be read.
  function F.read(job)
    local d, a, b = F.shape(job)
    if not d then return nil end
    local keys = {}
    for word in gmatch(sub(job, a, b), '%S+') do keys[#keys + 1] = word end
    if #keys ~= d.keys then return nil end
    local t = { name = d.name, queue = d.queue, locks = {} }
    for k, lock in ipairs(d.locks) do t.locks[k] = { keys[lock[3]], lock[1], lock[2] } end
    if d.rate then t.rate = { keys[d.rate[3]], d.rate[1], d.rate[2] } end
    if d.claim then t.claim = keys[d.claim] end
    if d.wait then t.wait = keys[d.wait] end
    return t, sub(job, b + 2, (find(job, '"', b + 2, true) or b + 2) - 1)
  end
end
