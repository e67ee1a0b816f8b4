-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Texts joined in one value by joined.SEPARATOR (ASCII's record separator, 30,
-- which JSON text never holds raw): src/protocol/define.ts `joined` (ARGV)
-- and `texts` (replies). One value, where one a text cost the client its
-- encoding or decoding per text (bench/client-instructions.ts counts it).
-- Replays: joining and splitting are pure (no key read or written), so a
-- replay joins or splits the same texts the same way.
-- At maxmemory: a joined value is built in the script's own memory, once a
-- call, and no key stores it (a reply's joined jobs are the batch already
-- moved; the kept reply keeps counts, as before): nothing grows.
-- CHUNK_BYTES: a group longer than this goes as chunks, each at most this long (a
-- job longer alone, alone): Lua 5.1 builds a concatenation in a buffer of 8 KiB (its
-- LUAL_BUFFERSIZE, BUFSIZ on glibc) and, once a buffer overflows, makes each buffer a
-- string and the whole a string again, and Redis' Lua hashes every byte of each string
-- it makes; a chunk that fits is made and hashed once (bench/redis-step-instructions.ts).
-- One table, not a local each: an entry script's main chunk holds at most 200 locals.
-- MAX_BYTES: a group of jobs longer than this together goes one value a job, as before
-- joining. A client reads a bulk string as one string, and Node's longest is 2^29 - 24
-- UTF-16 units (ioredis and node-redis fail the reply past it, and a replay answers it
-- again: those jobs would never run), where each job alone fits; past 16 MiB a job's own
-- decoding costs nothing beside its bytes.
local joined = { SEPARATOR = '\30', MAX_BYTES = 16 * 1024 * 1024, CHUNK_BYTES = 8192 }

-- `list` joined, when it has a text or more, none holds the separator and
-- together they are at most MAX_BYTES: one string when at most CHUNK_BYTES,
-- else { { chunk, … } }, each chunk some of the texts in order, joined; else
-- `list` as it is (a reply's `texts` takes any of the three).
-- `numbers`: every text is a number's (a score as Redis writes it, '%.17g', at most 24
-- characters): none holds the separator, and a list short enough is joined without a look at
-- each (some 600 instructions an id of an ordered fetch, bench/ordered-redis-instructions.ts).
function joined.texts(list, numbers)
  local n = #list
  if n == 0 then return list end
  local sep, limit = joined.SEPARATOR, joined.CHUNK_BYTES
  if numbers and n * 25 - 1 <= limit then return table.concat(list, sep) end
  local find = string.find
  local bytes = n - 1
  for k = 1, n do
    local text = list[k]
    if find(text, sep, 1, true) then return list end
    bytes = bytes + #text
  end
  if bytes > joined.MAX_BYTES then return list end
  -- Within one chunk: no chunk is ever closed (the walk below would close none).
  if bytes <= limit then return table.concat(list, sep) end
  local from, chunk_bytes, starts = 1, -1, {}
  for k = 1, n do
    local len = #list[k]
    -- A chunk is closed before the text that would take it past the limit.
    if chunk_bytes >= 0 and chunk_bytes + 1 + len > limit then
      starts[#starts + 1] = from
      from, chunk_bytes = k, -1
    end
    chunk_bytes = chunk_bytes + 1 + len
  end
  if #starts == 0 then return table.concat(list, sep) end
  local chunks = {}
  starts[#starts + 1] = from
  for c = 1, #starts do
    local last = c < #starts and starts[c + 1] - 1 or n
    chunks[c] = table.concat(list, sep, starts[c], last)
  end
  return { chunks }
end

-- The `n` texts of `text` (n >= 1). A count the separators do not match is
-- a wrong call: an error, before anything is written.
function joined.split(text, n, what)
  local texts, from = {}, 1
  for k = 1, n - 1 do
    local at = string.find(text, joined.SEPARATOR, from, true)
    if not at then error(what .. ': ' .. n .. ' joined texts announced, ' .. k .. ' sent') end
    texts[k] = string.sub(text, from, at - 1)
    from = at + 1
  end
  if string.find(text, joined.SEPARATOR, from, true) then error(what .. ': more joined texts than the ' .. n .. ' announced') end
  texts[n] = string.sub(text, from)
  return texts
end

-- lib/tick/fetch-jobs.lua's groups (queue, {jobs}, {counts}, place, …) as a reply may
-- carry them (src/protocol/sections.ts `fetched`): each group's jobs joined,
-- so the client decodes one bulk string a group, not one a job. A copy: the
-- groups stay lists for the kept reply and the counts. Here, not beside
-- fetch(): begin.lua, which includes fetch() but answers lists, has no room
-- for one more local.
function joined.groups(groups)
  local out = {}
  for g = 1, #groups, 4 do
    out[g], out[g + 1], out[g + 2], out[g + 3] = groups[g], joined.texts(groups[g + 1]), groups[g + 2], groups[g + 3]
  end
  return out
end
