-- Texts joined in one value by joined.SEPARATOR (ASCII's record separator, 30,
-- which JSON text never holds raw): src/protocol/define.ts `joined` (ARGV)
-- and `texts` (replies). One value, where one a text cost the client its
-- encoding or decoding per text (bench/client-instructions.ts counts it).
-- Replays: joining and splitting are pure (no key read or written), so a
-- replay joins or splits the same texts the same way.
-- At maxmemory: a joined value is built in the script's own memory, once a
-- call, and no key stores it (a reply's joined jobs are the batch already
-- moved; the kept reply keeps counts, as before): nothing grows.
-- One table, not a local each: an entry script's main chunk holds at most 200 locals.
-- MAX_BYTES: a group of jobs longer than this together goes one value a job, as before
-- joining. A client reads a bulk string as one string, and Node's longest is 2^29 - 24
-- UTF-16 units (ioredis and node-redis fail the reply past it, and a replay answers it
-- again: those jobs would never run), where each job alone fits; past 16 MiB a job's own
-- decoding costs nothing beside its bytes.
local joined = { SEPARATOR = '\30', MAX_BYTES = 16 * 1024 * 1024 }

-- `list` as one string, when it has a text or more, none holds the separator
-- and together they are at most MAX_BYTES; else `list` as it is (a reply's
-- `texts` takes either).
function joined.texts(list)
  local n = #list
  if n == 0 then return list end
  local bytes = n - 1
  for k = 1, n do
    if string.find(list[k], joined.SEPARATOR, 1, true) then return list end
    bytes = bytes + #list[k]
  end
  if bytes > joined.MAX_BYTES then return list end
  return table.concat(list, joined.SEPARATOR)
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

-- lib/tick/fetch-jobs.lua's groups (queue, {jobs}, {counts}, …) as a reply may
-- carry them (src/protocol/sections.ts `fetched`): each group's jobs joined,
-- so the client decodes one bulk string a group, not one a job. A copy: the
-- groups stay lists for the kept reply and the counts. Here, not beside
-- fetch(): begin.lua, which includes fetch() but answers lists, has no room
-- for one more local.
function joined.groups(groups)
  local out = {}
  for g = 1, #groups, 3 do
    out[g], out[g + 1], out[g + 2] = groups[g], joined.texts(groups[g + 1]), groups[g + 2]
  end
  return out
end
