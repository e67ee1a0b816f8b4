-- result: the outcome a tick wrote for an awaited job (lib/results/keep-results.lua),
-- and the last progress a running job reported (ctx.progress), read by
-- tq.jobs.result and each poll of tq.enqueueAndWait.
-- KEYS: [1] P.."result:"..JID  [2] P.."progress:"..JID
-- ARGV: [1] prefix
-- Returns: {the outcome record (JSON text: state, finished_at, and the
--          result or the error) or false, the progress value (JSON) or false}
-- Replays: reads only.
return { redis.call('GET', KEYS[1]), redis.call('GET', KEYS[2]) }
