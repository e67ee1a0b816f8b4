-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Solo runs: a job a dead tick left behind (a suspect,
-- lib/tick/resurrect-dead-ticks.lua) runs alone in its process, and the
-- call before it starts records it in `solo` (tick id → "p" and the job
-- string, or for a job over 1 KiB "p#" and its SHA-1 as acks name it
-- (lib/tick/ack-jobs.lua), for one not valid UTF-8 "p~" and the SHA-1 of
-- its text as read, or "o" and an ordered id's
-- "NAME ID"). Should that tick die, the resurrector knows the one job that
-- was running and counts it alone. Any later call that names no solo job
-- clears the record; one that says nothing (an empty marker) leaves it.
-- Written only while the lease is held: once it is gone the resurrector
-- may already have read and cleared the record.
-- @include lib/common/prefix-keys.lua

-- A step's ARGV[6]: its call number, optionally followed by its lane ('a'
-- or 'b' over HTTP, 'c' or 'd' over one connection: lib/tick/replay-call.lua) and the tick's load ("/running/waiting":
-- handlers running, jobs fetched not started, as the call went out), then
-- optionally a space and the marker. Returns the number, the marker (''
-- when absent), the load (nil when absent) and the lane (nil when none).
local function call_number(arg)
  local head, marker = string.match(arg, '^(%S+) (.*)$')
  if not head then head, marker = arg, '' end
  local seq, lane, running, waiting = string.match(head, '^(%d+)([abcd]?)/(%d+)/(%d+)$')
  if seq then return tonumber(seq), marker, { tonumber(running), tonumber(waiting) }, lane ~= '' and lane or nil end
  seq, lane = string.match(head, '^(%d+)([abcd]?)$')
  return tonumber(seq), marker, nil, lane ~= '' and lane or nil
end

-- The load a step reported, as its lease hash keeps it (`load`: "running
-- waiting", the jobs this call fetched counted as waiting), where stats.lua
-- sums it over live ticks; nil when the call sent none. Step writes it with
-- its kept reply (lib/tick/replay-call.lua's remember), so only while the
-- lease is held, and a replay never reaches it (it answers the kept reply).
local function load_text(load, fetched)
  -- One format, not two numbers joined ('%.14g' each).
  if load then return string.format('%d %d', load[1], load[2] + fetched) end
  return nil
end

-- marker: '' keep, '-' clear, otherwise the solo job's record.
local function note_solo(tick, marker)
  if marker == '' then return end
  if marker == '-' then
    redis.call('HDEL', P .. 'solo', tick)
  else
    redis.call('HSET', P .. 'solo', tick, marker)
  end
end
