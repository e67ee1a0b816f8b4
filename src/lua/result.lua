-- result: the outcome a tick wrote for an awaited job (lib/results/keep-results.lua),
-- read by tq.jobs.result and each poll of tq.enqueueAndWait.
-- KEYS: [1] P.."result:"..JID
-- ARGV: [1] prefix
-- Returns: the outcome record (JSON text: state, finished_at, and the result
--          or the error), or false when none is there (yet, or any more)
-- Replays: reads only.
return redis.call('GET', KEYS[1])
