-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Recurring pass of begin (recurring jobs, src/recurring/): reads only.
-- Tells the tick whether Redis holds its declaration (the digest it sent
-- equals the one stored at the last sync) and which schedules are due: the
-- `schedules:due` sorted set holds each schedule's next slot (ms) as score.
-- An idle tick whose declaration is unchanged learns both here, at the cost
-- of a GET and a ZRANGEBYSCORE, however many schedules are declared; only a
-- changed declaration or a due slot costs the tick one more call
-- (recurring.lua), which Lua needs because it cannot compute cron slots.
-- @include lib/common/prefix-keys.lua

-- Returns {in sync (1/0), {name, due slot ms, last claimed slot ms or '', ...}, more due (1/0)}.
local function recurring_due(now, digest, limit)
  local stored = redis.call('GET', P .. 'schedules:digest') or ''
  local in_sync = 0
  if stored == digest then in_sync = 1 end
  if limit <= 0 then return { in_sync, {}, 0 } end
  local due = redis.call('ZRANGEBYSCORE', P .. 'schedules:due', '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit)
  local out = {}
  if #due > 0 then
    local names = {}
    for k = 1, #due, 2 do names[#names + 1] = due[k] end
    local lasts = redis.call('HMGET', P .. 'schedules:last', unpack(names))
    for k, name in ipairs(names) do
      out[#out + 1] = name
      out[#out + 1] = due[2 * k]
      out[#out + 1] = lasts[k] or ''
    end
  end
  local more = 0
  if #due / 2 == limit then more = 1 end
  return { in_sync, out, more }
end
