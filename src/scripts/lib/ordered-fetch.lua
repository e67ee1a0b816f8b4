-- Ordered fetch pass: moves ready ids, oldest due first, from `ready` to
-- `running` under this tick's token, each with a new fence, and answers
-- their payloads (lowest score first). Any tick may take any id: no shard
-- count. An id that runs is in no `ready` set, so no other tick can fetch
-- it until its holder acks or dies; payloads that arrive meanwhile go to
-- `n:ID` (enqueue-ordered.lua) and run after it.
-- Per batch: one ZRANGEBYSCORE, ZREMRANGEBYRANK, INCRBY, HSET and DECRBY
-- per name, one ZRANGE per id.

-- Takes up to `limit` due ids of `name` into `out`; returns how many.
local function fetch_name(tick, name, limit, now, out)
  if limit <= 0 then return 0 end
  local ready = okey(name, 'ready')
  local due = redis.call('ZRANGEBYSCORE', ready, '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit)
  local count = #due / 2
  if count == 0 then return 0 end
  -- The lowest scores are the lowest ranks: exactly the ids just read.
  redis.call('ZREMRANGEBYRANK', ready, 0, count - 1)
  local fence = redis.call('INCRBY', okey(name, 'fence'), count) - count
  local retries, resurrections = okey(name, 'retries'), okey(name, 'resurrections')
  local any_retries = redis.call('EXISTS', retries) == 1
  local any_resurrections = redis.call('EXISTS', resurrections) == 1
  local holders, held, moved, got = {}, {}, 0, 0
  for j = 1, #due, 2 do
    local id = due[j]
    local items = redis.call('ZRANGE', okey(name, 'p:' .. id), 0, -1, 'WITHSCORES')
    -- An id without payloads (nothing should leave one) is dropped, not run.
    if #items > 0 then
      fence = fence + 1
      local token = tick .. ' ' .. fence .. ' ' .. due[j + 1]
      holders[#holders + 1] = id
      holders[#holders + 1] = token
      held[#held + 1] = name .. ' ' .. id
      held[#held + 1] = token
      local payloads, scores = {}, {}
      for k = 1, #items, 2 do
        payloads[#payloads + 1] = items[k]
        scores[#scores + 1] = items[k + 1]
      end
      moved = moved + #payloads
      local failures = any_retries and tonumber(redis.call('HGET', retries, id)) or 0
      local deaths = any_resurrections and tonumber(redis.call('HGET', resurrections, id)) or 0
      out[#out + 1] = { name, id, fence, failures or 0, deaths or 0, payloads, scores }
      got = got + 1
    end
  end
  if got > 0 then
    redis.call('HSET', okey(name, 'running'), unpack(holders))
    redis.call('HSET', oinproc_key(tick), unpack(held))
    redis.call('DECRBY', okey(name, 'payloads'), moved)
  end
  return got
end

-- Up to `limit` ids over the names, starting at a name that turns with the
-- clock so that no name always comes last.
local function fetch_ordered(tick, names, limit, now, out)
  local got = 0
  local start = now % #names
  for r = 0, #names - 1 do
    if got >= limit then break end
    got = got + fetch_name(tick, names[(start + r) % #names + 1], limit - got, now, out)
  end
  return got
end

-- A batch shared by plain jobs and ordered ids: ordered ids take up to half
-- first, plain jobs the rest, then ordered ids whatever plain jobs left.
-- Neither starves the other, and either alone fills the whole batch. With
-- no ordered names it is lib/fetch.lua's fetch and nothing more.
-- Returns the plain groups (lib/fetch.lua) and the ordered entries:
-- {name, id, fence, failures, resurrections, {payloads}, {scores}}.
local function fetch_mixed(tick, batch, queues, picks, names, now)
  if #names == 0 then return fetch(tick, batch, queues, picks), {} end
  local ordered = {}
  local got = fetch_ordered(tick, names, math.ceil(batch / 2), now, ordered)
  local plain = fetch(tick, batch - got, queues, picks)
  for g = 2, #plain, 3 do got = got + #plain[g] end
  if got < batch then fetch_ordered(tick, names, batch - got, now, ordered) end
  return plain, ordered
end
