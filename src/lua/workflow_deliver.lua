#!lua flags=allow-oom
-- workflow_deliver: resolves the next chunk of an event's waits (its
-- sender's loop after workflow_event.lua: lib/workflows/deliver-events.lua).
-- KEYS: event
-- ARGV: prefix token
-- Returns: number
-- event: P..'wf:event:'..token, the delivery. Returns how many of its waits
-- are left (0: every one is resolved, or it was already done).
-- Replays: a replay takes the next chunk (SPOP): a wait is taken by one call
-- only, so none is resolved twice; one whose run no longer parks it is
-- dropped. A delivery already done answers 0 and changes nothing.
-- maxmemory: runs (allow-oom): a chunk of an event's waits lands: it adds the event's data (at
-- most the step-result limit) to each of at most one chunk of waits, and shrinks the delivery.
-- @include lib/common/prefix-keys.lua
-- @include lib/workflows/deliver-events.lua

local token = ARGV[2]
return wf_deliver(token, now_ms())
