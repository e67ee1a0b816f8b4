// A step the tick gave up on (no answer within its patience: calls.ts) may
// still run at Redis: over TCP it waits in the client's queue or the socket,
// and Redis runs it when it wakes, before the tick's finish written after it
// on the same connection. Its fetch then moved jobs into the tick's lists that
// the tick never saw: finish would leave them behind the lease, for a
// resurrector that counts each one resurrected (a suspect), and its acks,
// put back into finish's, would be acked twice (a second copy of the same
// text, another batch's, taken for it). So before finish the tick sends each
// given-up step once more, unchanged (same number, lane and arguments):
// Redis runs it now if it never ran, or answers its kept reply
// (lib/tick/replay-call.lua), and either way the tick takes that reply as it
// would have — the acks settled, the fetched work handed back unstarted by
// finish. A step Redis runs only after finish is stale there (finish's number
// is higher) and acts on nothing. If Redis still does not answer, finish goes
// without the acks of that step and of those after it: over TCP the step waits
// on the connection ahead of finish and its acks are done by the time finish
// runs, and a second ack of a text takes out another copy of it (a job
// without a jid), one the late step fetched, which then never runs
// (test/integration/replay/given-up-step-resend-unanswered.test.ts). Left out,
// an ack the step never made leaves its job in the tick's list for the
// resurrector: run twice at worst, never lost. The batch a late step fetched
// goes to the resurrector too.
import type { Stepped, TickOutcome, TickWork } from "./capability.js";
import type { OpenTick } from "./open.js";
import * as protocol from "../protocol/index.js";
import { takeStep } from "./step-reply.js";

/**
 * Sends the given-up steps again, in the order they went: for each answered, its acks leave
 * `finished` (settled) and its fetched work joins what finish hands back. Once one goes
 * unanswered, its acks and those of the steps after it leave `finished` too, unsettled.
 */
export async function settleGivenUp(
  t: OpenTick,
  finished: TickOutcome[],
): Promise<{ finished: TickOutcome[]; fetched: TickWork[] }> {
  const fetched: TickWork[] = [];
  let left = finished;
  const steps = t.givenUp.splice(0);
  for (const [k, step] of steps.entries()) {
    let stepped: Stepped;
    try {
      stepped = await t.calls.send(protocol.step, step.args);
    } catch {
      const unsure = new Set(steps.slice(k).flatMap((s) => s.acks));
      return { finished: left.filter((outcome) => !unsure.has(outcome)), fetched };
    }
    const settled = new Set(step.acks);
    left = left.filter((outcome) => !settled.has(outcome));
    const reply = takeStep(t, stepped, step);
    fetched.push(...reply.fetched);
    // A group it named by place alone and could not cut so: acked by text in finish.
    if (reply.resend) left = left.concat(reply.resend);
  }
  return { finished: left, fetched };
}
