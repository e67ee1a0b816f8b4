-- Reading a flow job (lib/flow/flow.lua). Its JSON opens with the descriptor
-- {"tickq_flow":"SHAPE|KEYS|JID" (src/job/flow-descriptor.ts). SHAPE ("NAME
-- QUEUE [u] [l LIMIT]… [r LIMIT PERIOD_MS] [c] [w]") is the same for every
-- job of a name, queue and limits, so it is parsed once a call and looked up
-- after; KEYS are the job's keys, one a tag, in the tags' order. The job is
-- read with plain finds, never decoded as JSON: a fetch and an ack read
-- every flow job they meet.
-- @include lib/common/prefix-keys.lua

local FLOW_HEAD = '{"tickq_flow":"'
local SHAPE_AT = #FLOW_HEAD + 1
-- Every plain job opens with another field: its third byte tells it apart
-- without a search through the whole text.
local FLOW_HEAD_LETTER = string.byte(FLOW_HEAD, 3)

local function is_flow(job)
  return string.byte(job, 3) == FLOW_HEAD_LETTER and string.find(job, FLOW_HEAD, 1, true) == 1
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

  -- A shape, not to be changed: {text, name, queue, keys = how many, locks =
  -- {{limit, unique, at}}, rate = {limit, period, at}, claim = at, wait =
  -- at, one = true for a single unique slot and nothing else}; `at` is the
  -- place of its key in KEYS. A unique slot (tag u, key u:…) has one holder,
  -- kept as a string (lib/flow/slots.lua). false when the text is no shape.
  local function parse_shape(text)
    local w = {}
    for word in gmatch(text, '%S+') do w[#w + 1] = word end
    if #w < 2 then return false end
    local t = { text = text, name = w[1], queue = w[2], locks = {}, keys = 0 }
    local i = 3
    while i <= #w do
      local tag, n, m = w[i], tonumber(w[i + 1]), tonumber(w[i + 2])
      t.keys = t.keys + 1
      if tag == 'u' then
        t.locks[#t.locks + 1] = { limit = 1, unique = true, at = t.keys }
        i = i + 1
      elseif tag == 'l' and n and n >= 1 then
        t.locks[#t.locks + 1] = { limit = n, unique = false, at = t.keys }
        i = i + 2
      elseif tag == 'r' and n and m and n >= 1 and m >= 1 then
        t.rate = { limit = n, period = m, at = t.keys }
        i = i + 3
      elseif tag == 'c' then
        t.claim = t.keys
        i = i + 1
      elseif tag == 'w' then
        t.wait = t.keys
        i = i + 1
      else
        return false
      end
    end
    t.one = #t.locks == 1 and t.locks[1].unique and t.keys == 1
    return t
  end

  local shapes = {}
  local function shape_named(text)
    local shape = shapes[text]
    if shape == nil then
      shape = parse_shape(text)
      shapes[text] = shape
    end
    return shape
  end

  -- The text every job of `shape` opens with, up to its KEYS.
  function F.shape_head(shape)
    return FLOW_HEAD .. shape.text .. '|'
  end

  -- The text every job of `shape` and `keys` opens with, up to its jid.
  function F.head(shape, keys)
    return F.shape_head(shape) .. keys .. '|'
  end

  -- The one decoder of a descriptor: the job's shape, the text of its KEYS
  -- and its jid (escaped); nil when it is not "SHAPE|KEYS|JID" of a known
  -- shape. For a shape `one`, KEYS is its key.
  function F.descriptor(job)
    local shape_end = find(job, '|', SHAPE_AT, true)
    local keys_end = shape_end and find(job, '|', shape_end + 1, true)
    if not keys_end then return nil end
    local shape = shape_named(sub(job, SHAPE_AT, shape_end - 1))
    if not shape then return nil end
    local jid_end = find(job, '"', keys_end + 1, true) or keys_end + 1
    return shape, sub(job, shape_end + 1, keys_end - 1), sub(job, keys_end + 1, jid_end - 1)
  end

  -- The job whole, for paths that read a job or two: {name, queue, locks =
  -- {{key, limit, unique}}, rate = {key, limit, period}, claim = key, wait
  -- = key}, and its jid; nil when the descriptor cannot be read or holds
  -- another number of keys than its shape.
  function F.read(job)
    local shape, keys_text, jid = F.descriptor(job)
    if not shape then return nil end
    local keys = {}
    for word in gmatch(keys_text, '%S+') do keys[#keys + 1] = word end
    if #keys ~= shape.keys then return nil end
    local t = { name = shape.name, queue = shape.queue, locks = {} }
    for k, lock in ipairs(shape.locks) do t.locks[k] = { key = keys[lock.at], limit = lock.limit, unique = lock.unique } end
    local rate = shape.rate
    if rate then t.rate = { key = keys[rate.at], limit = rate.limit, period = rate.period } end
    if shape.claim then t.claim = keys[shape.claim] end
    if shape.wait then t.wait = keys[shape.wait] end
    return t, jid
  end
end
