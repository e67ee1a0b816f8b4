-- Sections of nested items, beside lib/common/packed.lua's of fixed width (the same formats, the same
-- checks), in a file of their own: only the scripts that read workflow commits carry them. In packed.lua
-- they cost a plain job 0.6 % more Redis instructions (bench/redis-step-instructions.ts), a
-- script's own functions made again each call. Replays and maxmemory: as packed.lua (reading is pure,
-- and the table lives in the script's memory for one call).
-- @include lib/common/packed.lua

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
