-- Solo runs: a job a dead tick left behind (a suspect,
-- lib/tick/resurrect-dead-ticks.lua) runs alone in its process, and the
-- call before it starts records it in `solo` (tick id → "p" and the job
-- string, or for a job over 1 KiB "p#" and its SHA-1 as acks name it
-- (lib/tick/ack-jobs.lua), or "o" and an ordered id's
-- "NAME ID"). Should that tick die, the resurrector knows the one job that
-- was running and counts it alone. Any later call that names no solo job
-- clears the record; one that says nothing (an empty marker) leaves it.
-- Written only while the lease is held: once it is gone the resurrector
-- may already have read and cleared the record.

-- A step's ARGV[6]: its call number, then optionally a space and the
-- marker. Returns the number and the marker ('' when absent).
local function call_number(arg)
  local seq, marker = string.match(arg, '^(%d+) (.*)$')
  if seq then return tonumber(seq), marker end
  return tonumber(arg), ''
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
