-- workflow_start_bulk: creates many workflow runs in one call, all or none:
-- when an id in the call is held by a run of another workflow (or named
-- twice with two workflows), nothing is written; else every run whose id
-- is free is created, due at once, as workflow_start.lua creates one
-- (lib/workflows/start-runs.lua, which begin.lua shares).
-- KEYS: all
-- ARGV: prefix runs[](id name input version)
-- Returns: []
-- all: P..'wf:all' (the index every run enters; named so a cluster routes the call).
-- runs: each run's id, workflow name, input JSON (stored as sent) and version.
-- Returns, per run in order, the name of the workflow its id holds: the
-- caller's own name for each run unless one conflicts, and then the call
-- wrote nothing (the caller refuses the whole call).
-- Replays: idempotent by id: a rerun finds every run it created and changes nothing;
-- a run named twice in the call is created once.
-- maxmemory: no flag: while Redis is full it is refused with REDIS_FULL at its first write,
-- before it writes anything (every check is a read, done before any write), as workflow_start.
-- @include lib/common/prefix-keys.lua
-- @include lib/workflows/start-runs.lua

local runsAt = 2
return wf_start_runs(runsAt, now_ms())
