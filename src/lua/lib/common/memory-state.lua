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
local function memory_use(info)
  local max = tonumber(string.match(info, '\nmaxmemory:(%d+)')) or 0
  local used = tonumber(string.match(info, '\nused_memory:(%d+)')) or 0
  local uncounted = tonumber(string.match(info, '\nmem_not_counted_for_evict:(%d+)')) or 0
  return used - uncounted, max
end

local function redis_full()
  local used, max = memory_use(memory_info())
  return max > 0 and used > max
end
