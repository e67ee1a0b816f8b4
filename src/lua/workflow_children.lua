-- workflow_children: the child runs a parent run started (workflow_child.lua), for its cancel.
-- KEYS: kids
-- ARGV: prefix
-- Returns: (children[])
-- kids: P..'wf:kids:'..parent. children: their run ids (none: an empty list).
-- Replays: a read: it writes nothing.
-- maxmemory: no flag: a read; it writes nothing.

return { redis.call('SMEMBERS', KEYS[1]) }
