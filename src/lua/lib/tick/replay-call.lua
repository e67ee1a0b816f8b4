-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- A tick numbers its calls (begin 1, then 2, 3, …) and keeps, in its lease
-- hash (`tick:ID`: seq, reply), the number and the reply of the last one.
-- A call whose reply was lost may reach Redis again (ioredis resends after
-- a reconnect, @upstash/redis retries, a failover replays): the replay gets
-- the first run's reply and acts on nothing, so no batch is acked twice,
-- fetched twice or deleted as "the next batch".
--
-- Replies are kept in a small length-prefixed encoding, not cjson: a job
-- string must come back byte for byte.
--
-- Lanes: over HTTP each call is its own request, so a tick keeps two steps
-- in flight (src/tick/pipeline.ts), one in each lane, 'a' and 'b'. A lane
-- call keeps its number and reply in its lane's fields (`seqa`, `replya`;
-- `seqb`, `replyb`): the other lane's later number never makes it stale, in
-- whatever order the two reach Redis. `seq` still holds the last call of no
-- lane (begin, housekeep, recurring, finish, a step over TCP), which goes
-- only while no lane call is in flight: a lane call numbered below it is
-- stale (a request held in transit past the tick's finish acts on nothing).
-- A lane step that holds the lease also counts itself (`ran`, step.lua) and
-- answers the count with its reply, kept with it: the tick takes the two
-- lanes' jobs in the order Redis fetched them, not the order it sent them.
--
-- Lanes of one connection: over TCP a tick keeps two steps in flight too,
-- in lanes 'c' and 'd' (same fields, `seqc`, `replyc`; `seqd`, `replyd`),
-- written back to back on one connection, which Redis runs in the order
-- sent, so the tick takes their replies in send order and such a call
-- answers no run number. It keeps, for each queue, the count of the jobs it fetched
-- and the length of their joined text in its reply (step.lua), not their
-- SHA-1s (hashing every job cost Redis 44 % more instructions a job:
-- bench/redis-step-instructions.ts), and counts itself in `ran` (and its
-- lane's `ranc` or `rand`) within the read and the write it makes anyway
-- (no HINCRBY). Its replay reads its
-- jobs by position: they sit at the head of the tick's lists, behind the
-- jobs the other lane's call fetched if that one ran after it (its `ran` is
-- higher: step.lua's ahead_of). Mostly at most one call of the other
-- lane has run after it before its reply is taken (the tick takes replies
-- in send order, and a lane holds one call at a time); when more have (a
-- resend after a transient error let a call sent after it run first, and
-- its lane's next went too), the replay answers as a lost lease. Acks
-- take the oldest copy of a text first (lib/tick/ack-jobs.lua), never the
-- copy a call not yet answered fetched, since the tick acks a copy it got
-- earlier. Should the jobs read back not match the count and the length
-- kept, the replay answers as a lost lease (nothing fetched): the tick
-- stops, and its lists wait for the lease to lapse and a resurrector to
-- put them back, so a job is neither lost nor handed over twice.
-- @include lib/common/prefix-keys.lua

-- A length's text, made once a call: a number joined to a string is formatted
-- as a float ('%.14g'), some 2,000 instructions, and a kept reply holds one
-- length per id or job. The kept reply's integers (its time, counts, flags)
-- come from here too: '%.17g' costs twice what '%d' does, and 0 and 1, the
-- most of them, cost nothing (bench/redis-step-instructions.ts).
-- (One local, a table: begin's includes are near Lua's 200 locals.)
local reply_lengths = { [0] = '0', [1] = '1' }
function reply_lengths.text(n)
  local text = reply_lengths[n]
  if not text then
    text = string.format('%d', n)
    reply_lengths[n] = text
  end
  return text
end

local function encode_reply(v, out)
  out = out or {}
  local t = type(v)
  if t == 'string' then
    out[#out + 1] = 's' .. reply_lengths.text(#v) .. ':' .. v
  elseif t == 'table' then
    out[#out + 1] = 't' .. reply_lengths.text(#v) .. ':'
    -- A string item in place, without a call each: a kept reply holds one per id or job.
    for k = 1, #v do
      local item = v[k]
      if type(item) == 'string' then
        out[#out + 1] = 's' .. (reply_lengths[#item] or reply_lengths.text(#item)) .. ':' .. item
      else
        encode_reply(item, out)
      end
    end
  elseif t == 'number' then
    -- An integer as '%d' (decode_reply's tonumber reads both forms alike); any other number as before.
    if v % 1 == 0 and v > -2 ^ 53 and v < 2 ^ 53 then
      out[#out + 1] = 'n' .. reply_lengths.text(v) .. ';'
    else
      out[#out + 1] = 'n' .. string.format('%.17g', v) .. ';'
    end
  else
    local s = tostring(v)
    out[#out + 1] = 's' .. reply_lengths.text(#s) .. ':' .. s
  end
  return out
end

local function decode_reply(s, i)
  i = i or 1
  local tag = string.sub(s, i, i)
  if tag == 'n' then
    local e = string.find(s, ';', i, true)
    return tonumber(string.sub(s, i + 1, e - 1)), e + 1
  end
  local colon = string.find(s, ':', i, true)
  local n = tonumber(string.sub(s, i + 1, colon - 1))
  if tag == 's' then return string.sub(s, colon + 1, colon + n), colon + n + 1 end
  local list, j = {}, colon + 1
  for k = 1, n do list[k], j = decode_reply(s, j) end
  return list, j
end

-- 'fresh' (act), 'replay' (answer the kept reply), 'stale' (an older call,
-- long answered) or 'lost' (no lease: the tick may have been resurrected).
-- Third: whether the tick may have cancel marks to read (false only when
-- the lease is there without the `cancels` flag that every mark sets:
-- lib/cancel/read-cancel-marks.lua), read with `seq` so a tick whose jobs
-- nobody cancelled pays no command for cancels. A call of `lane` is stale
-- below `seq` (the last call of no lane) or below its lane's last number,
-- a replay of its lane's last. Fourth: the lease's `boot` stamp (false when
-- none), read in the same HMGET, for lib/tick/restart-hold.lua's stale_stamp:
-- a step pays one command for both, not two. Fifth: the tick's lane steps
-- run so far (`ran`), read in the same HMGET (a lane of one connection counts
-- itself with remember). Sixth, for a call of no lane: whether the tick gave a step up (`gaveup`,
-- given_up.lua), read where a lane call reads its lane's number, so finish knows, at no command of
-- its own, whether to raise the tick's given-up fence (lib/tick/given-up-fence.lua).
local function call_state(lease, seq, lane)
  local row = redis.call('HMGET', lease, 'seq', 'cancels', lane and 'seq' .. lane or 'gaveup', 'boot', 'ran')
  local last = row[1]
  if not last then return 'lost', nil, true end
  last = tonumber(last)
  local marked = row[2] ~= false
  local reply_field = 'reply'
  if lane then
    if seq <= last then return 'stale', nil, marked end
    last, reply_field = row[3] and tonumber(row[3]) or 0, 'reply' .. lane
  end
  if seq == last then return 'replay', (decode_reply(redis.call('HGET', lease, reply_field))), marked end
  if seq < last then return 'stale', nil, marked end
  return 'fresh', nil, marked, row[4], tonumber(row[5] or 0), not lane and row[3] ~= false
end

-- The fields after a kept reply's number and reply, in the order every tick has written them: the load,
-- then the run numbers, each when given. Returned, not put in a table: a table a call cost Redis some
-- 0.4 % more instructions a job (bench/redis-step-instructions.ts), its allocation the collector's work.
-- (A field of reply_lengths, not a local: begin's includes are at Lua's 200 locals.)
function reply_lengths.tail(load, lane, ran)
  if load then return 'load', load, reply_lengths.tail(nil, lane, ran) end
  if ran then return 'ran', ran, 'ran' .. lane, ran end
end

-- Only while the lease exists: HSET must never bring a lost lease back.
-- `load`, when given, is the tick's load (lib/tick/run-solo.lua's load_text),
-- kept in the same HSET: a step pays one write, not two. `lane`: a lane
-- call's, kept in its lane's fields.
-- `ran`, when given, is the lane call's run number (a lane of one connection), kept in the same HSET:
-- as the tick's count (`ran`) and as its lane's (`ranc`, `rand`: step.lua's ahead_of reads them).
local function remember(lease, seq, reply, load, lane, ran)
  local text = table.concat(encode_reply(reply))
  local seq_field, reply_field = 'seq', 'reply'
  if lane then seq_field, reply_field = 'seq' .. lane, 'reply' .. lane end
  redis.call('HSET', lease, seq_field, seq, reply_field, text, reply_lengths.tail(load, lane, ran))
  return reply
end

-- The jobs a call fetched are not kept with its reply: they sit at the head
-- (left) of the tick's lists, untouched until the tick's next call, so a
-- replay reads them back. (A copy of every job string per call cost more
-- than the fetch itself.) `groups` is fetch()'s reply: queue, {jobs},
-- {resurrection counts}, place, …; the kept form has a count instead of {jobs}.
-- A lane call's jobs may have the other lane's fetched in front of them by
-- its replay, and the other lane's acks may take some of them out again,
-- or take out, of two jobs of the same text (a job pushed without a jid,
-- malformed text pushed twice), this lane's copy rather than the tick's:
-- positions prove nothing. So it keeps, with the count, the SHA-1 of each
-- of its jobs, in fetch order, and the replay finds each by its SHA-1: a
-- job of the same text is the same job to the tick (acks name jobs by
-- text), and the tick's list still holds every text of a call it has not
-- had answered, since it never acked more copies of a text than it held.
local function without_jobs(groups, lane)
  local kept = {}
  for g = 1, #groups, 4 do
    local jobs = groups[g + 1]
    local n = #jobs
    kept[g], kept[g + 1], kept[g + 2], kept[g + 3] = groups[g], n, groups[g + 2], groups[g + 3]
    if n > 0 and (lane == 'c' or lane == 'd') then
      -- A lane of one connection: the count, and the length its reply joined the jobs to (step.lua
      -- fills it in from the joined reply: no pass over the jobs), read back by position.
      kept[g + 1] = { n, 0 }
    elseif lane and n > 0 then
      local shas = {}
      for k = 1, n do shas[k] = redis.sha1hex(jobs[k]) end
      kept[g + 1] = { n, table.concat(shas) }
    end
  end
  return kept
end

-- Undoes without_jobs. Groups are read back last first: a queue fetched
-- twice in one call has its second group nearest the head. `ahead`: for a
-- lane of one connection, how many jobs of each queue the other lane's call
-- that ran after this one put in front (step.lua's ahead_of); nil (a lost
-- reply) when fewer are there than kept (step.lua checks their length).
local function with_jobs(tick, kept, ahead)
  local groups, offsets, texts = {}, ahead or {}, {}
  for g = #kept - 3, 1, -4 do
    local queue, n = kept[g], kept[g + 1]
    local at = offsets[queue] or 0
    local jobs = {}
    if type(n) == 'table' and type(n[2]) == 'number' then
      local newest_first = redis.call('LRANGE', inproc_key(tick, queue), at, at + n[1] - 1)
      offsets[queue] = at + n[1]
      for k = #newest_first, 1, -1 do jobs[#jobs + 1] = newest_first[k] end
      if #jobs ~= n[1] then return nil end
    elseif type(n) == 'table' then
      -- A lane call's group (without_jobs' { n, SHA-1s }): each job by its SHA-1 among the list's
      -- texts, read and hashed once a queue. One not there (a late replay no client waits for may
      -- find it acked) is left out.
      if not texts[queue] then
        texts[queue] = {}
        for _, job in ipairs(redis.call('LRANGE', inproc_key(tick, queue), 0, -1)) do
          texts[queue][redis.sha1hex(job)] = job
        end
      end
      for k = 1, n[1] do jobs[#jobs + 1] = texts[queue][string.sub(n[2], 40 * k - 39, 40 * k)] end
    elseif n > 0 then
      local newest_first = redis.call('LRANGE', inproc_key(tick, queue), at, at + n - 1)
      offsets[queue] = at + n
      for k = #newest_first, 1, -1 do jobs[#jobs + 1] = newest_first[k] end
    end
    groups[g], groups[g + 1], groups[g + 2], groups[g + 3] = queue, jobs, kept[g + 2], kept[g + 3]
  end
  return groups
end

