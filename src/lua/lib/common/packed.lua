-- A `packed` section of ARGV (src/protocol/define.ts putPacked): "j<values>" at its index, then the
-- count and every item's values in one value, joined by ASCII's record separator (30); or, when the
-- section was empty or a value held the separator, the section as it is (its count, then the values).
-- packed.section reads either into one layout, the one ARGV holds: the count at `at`, then `width`
-- values an item (lib/common/packed-nested.lua: nested items, each read by its caller's own function).
-- The reader of a section (lib/ordered/ack-ids.lua, its metrics trailer, ordered_enqueue.lua,
-- lib/workflows/commit-runs.lua) indexes that table whichever way the section came, one loop for both.
-- One string.match an item (its values at once): a find and a sub a value cost Redis some 20 % more
-- instructions an ordered payload (bench/ordered-redis-instructions.ts), ARGV's own values less still.
-- Replays: reading is pure (no key read or written), so a replay reads the same values the same way; a
-- value that does not hold the items announced, or a count (either form) that is not a whole number
-- whose values ARGV holds, is an error raised before the caller writes anything.
-- At maxmemory: the table lives in the script's own memory for one call; no key grows.

-- One table, not a local each: an entry script's main chunk holds at most 200 locals.
-- patterns: one a width, the item's values, each up to the next separator, then the position after
-- the item's last separator (none after the section's last item).
local packed = { patterns = {} }
function packed.pattern(width)
  local pattern = packed.patterns[width]
  if not pattern then
    pattern = '^' .. string.rep('([^\30]*)\30', width - 1) .. '([^\30]*)\30?()'
    packed.patterns[width] = pattern
  end
  return pattern
end

-- The section at ARGV[at] of items of `width` values: returns the table holding it (ARGV itself when it
-- came unpacked), the index of its count in that table, and the index in ARGV past the section.
-- `what` names the section in an error.
function packed.section(at, width, what)
  local head = ARGV[at]
  if string.byte(head) ~= 106 then -- not 'j': counted, as ARGV holds it
    -- Held to the packed form's checks: a whole count whose values ARGV holds, else an error before
    -- the caller writes anything (an overshoot read nil values part way through its writes).
    local count = tonumber(head)
    local after = count and at + 1 + width * count
    if not after or count < 0 or count % 1 ~= 0 or after - 1 > #ARGV then
      error(what .. ': the count ' .. head .. ' does not fit the ' .. (#ARGV - at) .. ' values after it')
    end
    return ARGV, at, after
  end
  local s, match, pattern = ARGV[at + 1], string.match, packed.pattern(width)
  local count, pos = match(s, '^(%d+)\30()')
  if not count then error(what .. ': the packed value has no count') end
  local V, k = { count }, 2
  -- Each width unrolled: the values go straight into V, no table a match (widths as readers need them).
  if width == 2 then
    for _ = 1, tonumber(count) do
      V[k], V[k + 1], pos = match(s, pattern, pos)
      if not pos then error(what .. ': no packed item at value ' .. k) end
      k = k + 2
    end
  elseif width == 3 then
    for _ = 1, tonumber(count) do
      V[k], V[k + 1], V[k + 2], pos = match(s, pattern, pos)
      if not pos then error(what .. ': no packed item at value ' .. k) end
      k = k + 3
    end
  elseif width == 5 then
    for _ = 1, tonumber(count) do
      V[k], V[k + 1], V[k + 2], V[k + 3], V[k + 4], pos = match(s, pattern, pos)
      if not pos then error(what .. ': no packed item at value ' .. k) end
      k = k + 5
    end
  else
    error(what .. ': no packed reader for items of ' .. width .. ' values')
  end
  if k - 1 ~= tonumber(string.sub(head, 2)) or pos ~= #s + 1 then
    error(what .. ': the packed value does not hold the ' .. count .. ' items announced')
  end
  return V, 1, at + 2
end
