-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- What ticks could not start, kept for stats (src/tick/unstartable.ts judges
-- it), so a job no tick will ever run is named, not only seen as latency:
--   budgets      hash  queue → "<budget ms> <at ms>": the largest budget of a
--                      tick that served the queue within the window (a stale
--                      or smaller one is replaced)
--   unstartable  hash  job name → "<at ms> <count> <reason> <limit ms> <budget ms> <queue>":
--                      what the last tick that met it could not start, `timeout`
--                      (its timeoutMs above the tick's whole budget) or `unknown`
--                      (a name the tick does not declare)
-- Bounded whatever the ticks meet: one field per served queue, and at most
-- UNSTARTABLE_MAX names (stale ones pruned first; past the bound a new name
-- is dropped, the ones recorded keep being updated), so at maxmemory, where
-- finish runs (allow-oom), they grow by no more than that.
-- Run again with the same arguments it writes the same fields, with a time
-- as true as the first (or finds its budget fresh and writes nothing).
-- ARGV from `at`: budgetMs windowMs n, then n entries (name reason queue limitMs count).
-- @include lib/common/prefix-keys.lua
local UNSTARTABLE_MAX = 100

-- The same budget written within half the window is left as it is: it stays fresh (read as stale
-- only a window after it was written), and a tick that keeps its budget costs one HGET, not a write.
local function record_budgets(queues, budget, window, now)
  local key = P .. 'budgets'
  for _, queue in ipairs(queues) do
    local b, since = string.match(redis.call('HGET', key, queue) or '', '^(%S+) (%S+)$')
    local age = since and now - tonumber(since)
    if not b or tonumber(b) < budget or age >= window or (tonumber(b) == budget and age >= window / 2) then
      redis.call('HSET', key, queue, budget .. ' ' .. now)
    end
  end
end

-- Drops the records older than the window; returns how many are left.
local function prune_unstartable(key, window, now)
  local all = redis.call('HGETALL', key)
  local left = #all / 2
  for k = 1, #all, 2 do
    if now - (tonumber(string.match(all[k + 1], '^(%S+)')) or 0) >= window then
      redis.call('HDEL', key, all[k])
      left = left - 1
    end
  end
  return left
end

-- Records this tick's part (finish calls it while the tick's lease lives); returns the index past it.
local function record_unstartable(at, queues, now)
  local budget, window, n = tonumber(ARGV[at]), tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2])
  record_budgets(queues, budget, window, now)
  local key = P .. 'unstartable'
  local size = n > 0 and prune_unstartable(key, window, now) or 0
  local i = at + 3
  for _ = 1, n do
    local name, reason, queue, limit, count = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
    i = i + 5
    local known = redis.call('HEXISTS', key, name) == 1
    if known or size < UNSTARTABLE_MAX then
      if not known then size = size + 1 end
      redis.call('HSET', key, name, table.concat({ now, count, reason, limit, budget, queue }, ' '))
    end
  end
  return i
end
