-- A `packed` section of ARGV (src/protocol/define.ts putPacked): "j<values>" at its index, then the
-- count and every item's values in one value, joined by ASCII's record separator (30); or, when the
-- section was empty or a value held the separator, the section as it is (its count, then the values).
-- packed.section reads either into one layout, the one ARGV holds: the count at `at`, then `width`
-- values an item (packed.nested: nested items, each read by its caller's own function). The reader of a
-- section (lib/ordered/ack-ids.lua, ordered_enqueue.lua, lib/workflows/commit-runs.lua) indexes that
-- table whichever way the section came, one loop for both.
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

-- Nested items (a workflow commit: lib/workflows/commit-runs.lua, its steps and parks each counted)
-- have no width: their caller reads one itself, with two functions. item(s, pos, V, k) reads the item at
-- `pos` of the packed value `s` into V from `k` and answers the position past it (past its separator, or
-- #s + 2 after the value's last item) and the index past it in V, or nil when `s` does not hold one;
-- span(V, j) answers the index past the item at V[j] of a counted section, or nil when a count in it is
-- not a whole number. (A reader given the item's shape to walk cost Redis 1.4-1.6x what an item reader
-- does, in its calls and its checks of each part, and 10 % more a workflow step: docs/benchmarks.md.)

-- The section at ARGV[at] of nested items, read as packed.section reads one of fixed width (the same
-- three returns, the same checks: every item read, and checked, before the caller writes anything).
function packed.nested(at, item, span, what)
  if string.byte(ARGV[at]) ~= 106 then return ARGV, at, packed.walk(at, span, what) end
  local s = ARGV[at + 1]
  local count, pos = string.match(s, '^(%d+)\30()')
  if not count then error(what .. ': the packed value has no count') end
  local V, k = { count }, 2
  for _ = 1, tonumber(count) do
    pos, k = item(s, pos, V, k)
    if not pos then error(what .. ': no packed item at value ' .. #V) end
  end
  if k - 1 ~= tonumber(string.sub(ARGV[at], 2)) or pos ~= #s + 2 then
    error(what .. ': the packed value does not hold the ' .. count .. ' items announced')
  end
  return V, 1, at + 2
end

-- A counted section of nested items at ARGV[at]: the index in ARGV past it, held to the checks of a
-- packed one (whole counts whose values ARGV holds), else an error before the caller writes anything.
function packed.walk(at, span, what)
  local count = tonumber(ARGV[at])
  local j = count and count >= 0 and count % 1 == 0 and at + 1
  for _ = 1, j and count or 0 do
    j = span(ARGV, j)
    if not j or j - 1 > #ARGV then break end
  end
  if not j or j - 1 > #ARGV then
    error(what .. ': the count ' .. ARGV[at] .. ' does not fit the ' .. (#ARGV - at) .. ' values after it')
  end
  return j
end

-- The count of items of a section of nested items at ARGV[at] and the index in ARGV past it, no item read
-- (a packed section's count is its first value).
function packed.skip(at, span, what)
  if string.byte(ARGV[at]) == 106 then return tonumber(string.match(ARGV[at + 1], '^%d+')), at + 2 end
  return tonumber(ARGV[at]), packed.walk(at, span, what)
end
