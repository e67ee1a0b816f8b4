-- A workflow run's keys and its status (src/workflows/README.md has the layout).
-- A run's status sits in its hash, in one index zset per status
-- (`wf:s:STATUS`, scored by when it entered it) which list reads, and in a
-- count per status and workflow (`wf:counts`, "STATUS:NAME") which stats reads.
-- @include lib/common/prefix-keys.lua

local function wf_key(part, id)
  if id then return P .. 'wf:' .. part .. ':' .. id end
  return P .. 'wf:' .. part
end

-- Event and match are length-prefixed, so no pair of them names another's set.
local function wf_wait_key(event, match)
  return P .. 'wf:wait:' .. #event .. ':' .. event .. match
end

local WF_TERMINAL = { completed = true, failed = true, cancelled = true }

-- Writes of the run lists (wf:s:STATUS, wf:ended, wf:held) and counts, deferred while a call commits
-- or claims a batch of runs (open … flush): each list gets one ZADD or ZREM for the whole batch, each
-- count one HINCRBY, so ten runs ending together share them. No script reads these keys between open
-- and flush; a member already waiting in the other command of its key flushes first, so the order of
-- one member's ZADD and ZREM holds. Closed (every other script), each goes at once.
local wf_defer = { open = false }

function wf_defer.start()
  wf_defer.open, wf_defer.lists, wf_defer.order, wf_defer.counts, wf_defer.fields = true, {}, {}, {}, {}
end

-- ZADD (with `score`) or ZREM of `id` in the list `key`.
function wf_defer.list(command, key, id, score)
  if not wf_defer.open then
    if score then redis.call(command, key, score, id) else redis.call(command, key, id) end
    return
  end
  local other = wf_defer.lists[(command == 'ZADD' and 'ZREM' or 'ZADD') .. key]
  if other and other.has[id] then
    wf_defer.flush()
    wf_defer.start()
  end
  local group = wf_defer.lists[command .. key]
  if not group then
    group = { command = command, key = key, args = {}, has = {} }
    wf_defer.lists[command .. key] = group
    wf_defer.order[#wf_defer.order + 1] = group
  end
  if score then group.args[#group.args + 1] = score end
  group.args[#group.args + 1] = id
  group.has[id] = true
end

-- A count that falls to 0 leaves the hash: a prefix whose runs are all removed holds no count.
function wf_defer.count(field, delta)
  if wf_defer.open then
    if not wf_defer.counts[field] then wf_defer.fields[#wf_defer.fields + 1] = field end
    wf_defer.counts[field] = (wf_defer.counts[field] or 0) + delta
  elseif redis.call('HINCRBY', wf_key('counts'), field, delta) <= 0 then
    redis.call('HDEL', wf_key('counts'), field)
  end
end

-- Sends what waits (in chunks of 500 members: unpack's stack) and closes.
function wf_defer.flush()
  if not wf_defer.open then return end
  wf_defer.open = false
  for _, group in ipairs(wf_defer.order) do
    local args, step = group.args, group.command == 'ZADD' and 1000 or 500
    for from = 1, #args, step do
      redis.call(group.command, group.key, unpack(args, from, math.min(#args, from + step - 1)))
    end
  end
  for _, field in ipairs(wf_defer.fields) do
    if wf_defer.counts[field] ~= 0 then wf_defer.count(field, wf_defer.counts[field]) end
  end
end

local function wf_count(status, name, delta)
  wf_defer.count(status .. ':' .. name, delta)
end

-- `fields`: more field, value pairs of the run's hash written with its status (one HSET).
-- `known`: { status, name } the caller just read from the run's hash in this script (not read again).
local function wf_set_status(id, status, now, fields, known)
  local run = wf_key('run', id)
  local f = known or redis.call('HMGET', run, 'status', 'name')
  local old, name = f[1], f[2]
  local set = fields or {}
  if old ~= status then
    if old then
      wf_defer.list('ZREM', wf_key('s:' .. old), id)
      wf_count(old, name, -1)
    end
    wf_count(status, name, 1)
    wf_defer.list('ZADD', wf_key('s:' .. status), id, now)
    set[#set + 1], set[#set + 2] = 'status', status
    set[#set + 1], set[#set + 2] = 'updated', now
    if WF_TERMINAL[status] then
      set[#set + 1], set[#set + 2] = 'ended', now
      wf_defer.list('ZADD', wf_key('ended'), id, now)
    end
  end
  if #set > 0 then redis.call('HSET', run, unpack(set)) end
end

-- No tick holds the run any more; `due` (ms or nil) puts it back in the due set (at once: a claim
-- in the same call may take it).
local function wf_release(id, due)
  redis.call('HDEL', wf_key('run', id), 'owner')
  wf_defer.list('ZREM', wf_key('held'), id)
  if due then redis.call('ZADD', wf_key('due'), due, id) end
end

-- A step record bigger than this has its fields without its result kept in
-- the run's hash too (`cut:STEP` = "<record bytes>:<record without result>"),
-- so a claim learns them without reading the result (carry-steps.lua). One
-- table, not a local each: begin.lua's main chunk is near Lua's 200 locals.
local wf_records = { SMALL = 1024 }

-- A completed record without its result, or nil (no result to leave out, or
-- cjson cannot read it: nested too deep). Every writer puts the result last,
-- after the small fields (status seq attempts startedAt endedAt), so the text
-- before `,"result":` is the rest; a record written another way is decoded.
function wf_records.without_result(text)
  local head = string.sub(text, 1, 256)
  if not string.find(head, '"status":"completed"', 1, true) then return nil end
  local at = string.find(head, ',"result":', 1, true)
  if at and not string.find(string.sub(head, 2, at - 1), '[{%[]') then return string.sub(text, 1, at - 1) .. '}' end
  local ok, record = pcall(cjson.decode, text)
  if not ok or type(record) ~= 'table' then return nil end
  record.result = nil
  return cjson.encode(record)
end

-- Keeps a big record's `cut:STEP` entry; returns the record without its
-- result, or nil (a small record, or one with no result to leave out).
function wf_records.keep_stub(id, step, record)
  if #record <= wf_records.SMALL then return nil end
  local stub = wf_records.without_result(record)
  if stub then redis.call('HSET', wf_key('run', id), 'cut:' .. step, #record .. ':' .. stub) end
  return stub
end

function wf_records.write(id, step, record)
  redis.call('HSET', wf_key('steps', id), step, record)
  wf_records.keep_stub(id, step, record)
end

-- A completed step record, for steps Redis resolves itself (a sleep's end,
-- an event, a wait's timeout): `result` is JSON text, kept as sent.
local function wf_resolved_record(seq, result, now)
  return '{"status":"completed","seq":' .. seq .. ',"attempts":1,"endedAt":' .. string.format('%.0f', now) ..
    ',"result":' .. result .. '}'
end

-- Ends a parked step: its record says completed with `result`, it leaves the
-- run's parked steps and, for a wait, its event's set.
local function wf_resolve_parked(id, step, parked, result, now)
  redis.call('HDEL', wf_key('park', id), step)
  if parked.k == 'w' then
    redis.call('SREM', wf_wait_key(parked.e, parked.m), cjson.encode({ id, step }))
  end
  wf_records.write(id, step, wf_resolved_record(parked.q, result, now))
end

-- Drops every parked step of a run that ends (completed, failed, cancelled,
-- removed): a step the code raced and left behind (Promise.race of a sleep
-- and a wait) must not stay in its event's set, or an event would resolve it
-- in an ended run.
local function wf_unpark_all(id)
  local park = wf_key('park', id)
  local entries = redis.call('HGETALL', park)
  for k = 1, #entries, 2 do
    local parked = cjson.decode(entries[k + 1])
    if parked.k == 'w' then redis.call('SREM', wf_wait_key(parked.e, parked.m), cjson.encode({ id, entries[k] })) end
  end
  if #entries > 0 then redis.call('DEL', park) end
end

-- The earliest time a parked step of the run ends by itself, or nil.
local function wf_next_wake(id)
  local at
  local parks = redis.call('HVALS', wf_key('park', id))
  for _, text in ipairs(parks) do
    local p = cjson.decode(text)
    if p.at and (not at or p.at < at) then at = p.at end
  end
  return at, #parks
end
