-- The sizes of each ordered job, for stats.lua: ids waiting (ready or
-- backing off, and those that also run now with payloads waiting behind
-- the run), ids running, payloads waiting, dead.
-- ARGV from `at`: n, then n ordered names. Returns the sizes and the index past them.
-- @include lib/ordered/state.lua
local function ordered_sizes(at)
  local out, n = {}, tonumber(ARGV[at])
  for k = 1, n do
    local name = ARGV[at + k]
    out[k] = {
      redis.call('ZCARD', okey(name, 'ready')) + redis.call('ZCARD', okey(name, 'later')),
      tonumber(redis.call('GET', okey(name, 'running'))) or 0,
      tonumber(redis.call('GET', okey(name, 'payloads'))) or 0,
      redis.call('ZCARD', okey(name, 'dead')),
    }
  end
  return out, at + n + 1
end
