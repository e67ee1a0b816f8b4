-- partition_shape: what `partitions: "auto"` needs to choose a partition
-- count: the count already stored for this key space (partitions.lua stored
-- it when the first partitioned tickq started), and the cluster's shape, each
-- slot range with the id of the master that serves it (CLUSTER SLOTS, which
-- Redis allows in a script). Reads only.
-- KEYS: meta
-- ARGV: prefix
-- Returns: (stored ranges[first last master])
-- meta: the user's prefix.."partitions". stored: the value stored (a
-- count, or "N>M id" while a migration moves the keys), "" for none; ranges: empty when the server is not a cluster (CLUSTER SLOTS fails).
-- Replays: it writes nothing, so a second run (or one beside a starting
-- tickq that stores a count meanwhile) answers what Redis holds then; the
-- caller stores its choice with partitions.lua (SET NX), so two starters
-- that chose differently both end up with the count stored first.
-- maxmemory: reads only: answers as ever while Redis is full.
local stored = redis.call('GET', KEYS[1]) or ''
local ranges = {}
local ok, slots = pcall(redis.call, 'CLUSTER', 'SLOTS')
if ok then
  for _, range in ipairs(slots) do
    local master = range[3]
    table.insert(ranges, range[1])
    table.insert(ranges, range[2])
    table.insert(ranges, master[3] or (tostring(master[1]) .. ':' .. tostring(master[2])))
  end
end
return {stored, ranges}
