-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- The last ticks and what each did, for the dashboard's Ticks page: finish
-- pushes the tick's summary (a short JSON object src/tick/recent.ts writes)
-- behind Redis' time onto `ticks:recent`, newest first, and trims the list.
-- Bounded in entries (RECENT_MAX) and in bytes (a summary over
-- RECENT_MAX_BYTES is not kept), so the list never passes ~50 KB; nothing is
-- written while Redis is over its maxmemory (finish runs there, allow-oom):
-- a summary is worth no byte the acks need.
-- finish calls it only fresh (lib/tick/replay-call.lua), so a replayed
-- finish answers its kept reply and pushes nothing twice.
-- @include lib/common/prefix-keys.lua
-- @include lib/common/memory-state.lua
local RECENT_MAX = 100
local RECENT_MAX_BYTES = 512

local function record_recent(summary, now)
  if summary == '' or #summary > RECENT_MAX_BYTES or redis_full() then return end
  local key = P .. 'ticks:recent'
  redis.call('LPUSH', key, now .. ' ' .. summary)
  redis.call('LTRIM', key, 0, RECENT_MAX - 1)
end
