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
  -- {{key, limit, unique}}, rate = {key, limit, period}, claim, wait}, not
  -- to be changed (`unique`: a key of one slot, u:…). The commonest form
  -- (one slot, as while-executing) is cut with plain finds, its name,
  -- queue and limit read once a call: a pattern match costs a microsecond
  -- or more in Redis' Lua, and a fetch and an ack read every flow job they
  -- meet. Any other form is split word by word.
  local find, sub, byte, match, gmatch = string.find, string.sub, string.byte, string.match, string.gmatch
  local shapes, heads = {}, {}

  local function lock(key, limit)
    return { key, limit, byte(key, 1) == 117 and byte(key, 2) == 58 }
  end

  local function shape_of(rest)
    local name, queue, tail = match(rest, '^(%S+) (%S+)(.*)$')
    local t = { name = name, queue = queue, locks = {} }
    local words = {}
    for word in gmatch(tail, '%S+') do words[#words + 1] = word end
    local i = 1
    while i <= #words do
      local tag = words[i]
      if tag == 'l' then
        t.locks[#t.locks + 1] = lock(words[i + 2], tonumber(words[i + 1]))
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

  -- "JID NAME QUEUE l LIMIT KEY" (s1..s4: the spaces after JID, NAME,
  -- QUEUE and LIMIT; stop: the closing quote): {name, queue, limit} of its
  -- "NAME QUEUE l LIMIT", read once a call, and s4; nil if the descriptor
  -- has another form.
  local function one_slot_head(job, s1, stop)
    local s2 = find(job, ' ', s1 + 1, true)
    if not s2 or s2 > stop then return nil end
    local s3 = find(job, ' ', s2 + 1, true)
    if not s3 or s3 > stop or byte(job, s3 + 1) ~= 108 or byte(job, s3 + 2) ~= 32 then return nil end
    local s4 = find(job, ' ', s3 + 3, true)
    if not s4 or s4 > stop then return nil end
    local s5 = find(job, ' ', s4 + 1, true)
    if s5 and s5 < stop then return nil end
    local head_text = sub(job, s1 + 1, s4 - 1)
    local head = heads[head_text]
    if not head then
      head = { sub(job, s1 + 1, s2 - 1), sub(job, s2 + 1, s3 - 1), tonumber(sub(job, s3 + 3, s4 - 1)) }
      heads[head_text] = head
    end
    return head, s4
  end

  local function one_slot(job, s1, stop)
    local head, s4 = one_slot_head(job, s1, stop)
    if not head then return nil end
    return { name = head[1], queue = head[2], locks = { lock(sub(job, s4 + 1, stop - 1), head[3]) } }
  end

  -- For a job of the one-slot form only (else nil): its name, its key and
  -- its jid, with no table made (an ack settles every job it acks).
  function F.slot(job)
    local s1 = find(job, ' ', 16, true)
    local stop = find(job, '"', s1, true)
    local head, s4 = one_slot_head(job, s1, stop)
    if not head then return nil end
    return head[1], sub(job, s4 + 1, stop - 1), sub(job, 16, s1 - 1)
  end

  -- The job's shape, and where its jid ends: the jid is sub(job, 16, s1 - 1),
  -- cut only by a caller that needs it (a parked duplicate does not).
  function F.shape(job)
    local s1 = find(job, ' ', 16, true)
    local stop = find(job, '"', s1, true)
    local rest = sub(job, s1 + 1, stop - 1)
    local d = shapes[rest]
    if not d then
      d = one_slot(job, s1, stop) or shape_of(rest)
      shapes[rest] = d
    end
    return d, s1
  end

  -- Returns the job's shape and its jid.
  function F.read(job)
    local d, s1 = F.shape(job)
    return d, sub(job, 16, s1 - 1)
  end
end
