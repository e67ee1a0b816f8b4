-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Whether Redis is over its maxmemory, as Redis judges it before a write:
-- used memory less what it does not count toward the limit (replication and
-- AOF buffers). One INFO memory; a Redis that refuses INFO inside scripts
-- (a managed service) reads as having no limit.

local function memory_info()
  local info = redis.pcall('INFO', 'memory')
  if type(info) ~= 'string' then return '' end
  return info
end

-- Used memory (as counted against the limit) and maxmemory, in bytes; max 0: no limit.
-- Each field by a plain find of "\nNAME:" (a memchr-led search) and the digits anchored right
-- after it: an unanchored string.match tries its pattern at each of INFO's ~2,000 positions,
-- three times a call, most of an empty tick's Lua work (issue 46). Local to it: begin's main
-- function is near Lua's 200 locals.
local function memory_use(info)
  local function number(name)
    local at = string.find(info, '\n' .. name .. ':', 1, true)
    return at and tonumber(string.match(info, '^%d+', at + #name + 2))
  end
  local max = number('maxmemory') or 0
  local used = number('used_memory') or 0
  local uncounted = number('mem_not_counted_for_evict') or 0
  return used - uncounted, max
end

local function redis_full()
  local used, max = memory_use(memory_info())
  return max > 0 and used > max
end
