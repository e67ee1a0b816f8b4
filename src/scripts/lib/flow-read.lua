-- Reading a flow job (lib/flow.lua): told apart from a plain job by its
-- first bytes, its descriptor cut into its jid and its shape.

local FLOW_HEAD = '{"tickq_flow":"'

local function is_flow(job)
  return string.byte(job, 3) == 116 and string.sub(job, 1, 15) == FLOW_HEAD
end

local function flow_read(F)
  -- A key of flow control: P.."flow:"..WHAT..":"..KEY.
  function F.key(what, key)
    return P .. 'flow:' .. what .. ':' .. key
  end

  function F.uri_decode(s)
    return (string.gsub(s, '%%(%x%x)', function(h) return string.char(tonumber(h, 16)) end))
  end

  -- The descriptor of a flow job: its jid, and what it shares with every
  -- job of the same name, queue and keys, read once a call (duplicates of
  -- a key, parked by the thousand, cost a lookup): {name, queue, locks =
  -- {{key, limit}}, rate = {key, limit, period}, claim, wait}, not to be
  -- changed. The commonest form (one slot, as while-executing) is read with
  -- one match; any other is split word by word.
  local find, sub, match, gmatch = string.find, string.sub, string.match, string.gmatch
  local shapes = {}

  local function shape_of(rest)
    local name, queue, tail = match(rest, '^(%S+) (%S+)(.*)$')
    local t = { name = name, queue = queue, locks = {} }
    local limit, key = match(tail, '^ l (%d+) (%S+)$')
    if limit then
      t.locks[1] = { key, tonumber(limit) }
      return t
    end
    local words = {}
    for word in gmatch(tail, '%S+') do words[#words + 1] = word end
    local i = 1
    while i <= #words do
      local tag = words[i]
      if tag == 'l' then
        t.locks[#t.locks + 1] = { words[i + 2], tonumber(words[i + 1]) }
        i = i + 3
      elseif tag == 'r' then
        t.rate = { words[i + 3], tonumber(words[i + 1]), tonumber(words[i + 2]) }
        i = i + 4
      elseif tag == 'c' then
        t.claim = words[i + 1]
        i = i + 2
      elseif tag == 'w' then
        t.wait = words[i + 1]
        i = i + 2
      else
        i = i + 1
      end
    end
    return t
  end

  -- Returns the job's shape and its jid.
  function F.read(job)
    local stop = find(job, '"', 16, true)
    local space = find(job, ' ', 16, true)
    local rest = sub(job, space + 1, stop - 1)
    local d = shapes[rest]
    if not d then
      d = shape_of(rest)
      shapes[rest] = d
    end
    return d, sub(job, 16, space - 1)
  end
end
