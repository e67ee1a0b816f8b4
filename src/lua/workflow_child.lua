-- workflow_child: notes a child run of a parent run (step.invokeWorkflow)
-- before the child starts, so that cancelling the parent finds it
-- (src/workflows/children.ts), whatever partition the child lives in.
-- KEYS: kids
-- ARGV: prefix child
-- Returns: number
-- kids: P..'wf:kids:'..parent, the parent's children (a set, removed with
-- the parent at its retention). Returns 1.
-- Replays: SADD: a rerun adds nothing.
-- maxmemory: no flag: while Redis is full it is refused with REDIS_FULL before it writes anything, and
-- the step that starts the child fails and is retried.

local child = ARGV[2]
redis.call('SADD', KEYS[1], child)
return 1
