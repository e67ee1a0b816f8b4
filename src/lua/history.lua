-- history: jobs processed and failed per day (UTC), read from the daily
-- counters the ack pass keeps (Sidekiq's `stat:processed:YYYY-MM-DD`), for
-- today and the days before it, by Redis' clock.
-- KEYS: processed
-- ARGV: prefix days
-- Returns: [day processed failed]
-- processed: P.."stat:processed" (read by nobody here: declared so a cluster
-- client routes the call to the prefix's slot; the daily counters'
-- names are built from the prefix). Returns the days, oldest first.
-- Replays: reads only.
-- maxmemory: reads only: answers as ever while Redis is full.
-- @include lib/common/prefix-keys.lua

local days = tonumber(ARGV[2])
local today = now_ms() / 1000
local names, processed, failed = {}, {}, {}
for k = days - 1, 0, -1 do
  local day = day_of(today - k * 86400)
  names[#names + 1] = day
  processed[#processed + 1] = P .. 'stat:processed:' .. day
  failed[#failed + 1] = P .. 'stat:failed:' .. day
end
processed = redis.call('MGET', unpack(processed))
failed = redis.call('MGET', unpack(failed))
local out = {}
for k = 1, #names do
  out[#out + 1] = names[k]
  out[#out + 1] = tonumber(processed[k]) or 0
  out[#out + 1] = tonumber(failed[k]) or 0
end
return out
