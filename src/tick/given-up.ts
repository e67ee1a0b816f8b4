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
// is higher) and acts on nothing. If Redis still does not answer, the tick
// asks (given_up.lua, a numbered call above theirs, so that none of them can
// run from then on) which of the unanswered ones ran: over HTTP requests are
// not ordered, and a step held in transit or dropped may never run. The acks
// of each one that never ran stay among finish's, the only ones ever made: the
// question fences it (lib/tick/given-up-fence.lua), so that arriving late, even
// past the lease, it acts on nothing; finish raises the fence past itself, so a
// late copy of finish, which would take a copy of a ran step's batch by text,
// acts on nothing either. Those of a step that ran leave finish's
// (leftOfFinish): a second ack of a text takes out another copy of it, a job
// without a jid, one the late step fetched, which then never runs
// (test/integration/replay/given-up-step-resend-unanswered.test.ts).
// Unanswered too, or the lease gone, nobody can tell: the acks of every
// unanswered step leave finish's, and a job a step never acked stays in the
// tick's list for the resurrector: run twice at worst, never lost; but a group
// one named by place alone goes back into finish, by place and text (placedAlone):
// a step that ran may have left it listed, answered missed in a reply nobody read,
// and finish is answered missed for it in turn when the step cut it
// (test/integration/replay/given-up-step-by-place-alone-uncut.test.ts). The batch
// a step that ran fetched goes to the resurrector too. Over TCP a step still
// waits on the connection ahead of the question, so Redis runs it first (the
// question counts it as run) unless it was lost with its connection; over
// HTTP test/integration/replay/given-up-step-never-ran.test.ts holds one.
// Every given-up step answered on resend, the tick ends as any tick that
// stopped early: no error, a warning (run.ts).
import type { Stepped, TickOutcome, TickWork } from "./capability.js";
import type { OpenTick } from "./open.js";
import * as protocol from "../protocol/index.js";
import { takeStep } from "./step-reply.js";
import { byPlaceAlone } from "./passes/ack.js";
import type { GivenUpStep } from "./given-up-step.js";

/** What the given-up steps settled; `recovered`: the errors they were given up for, when every one answered on resend. */
export interface GivenUpSettled {
  finished: TickOutcome[];
  fetched: TickWork[];
  recovered: unknown[];
}

/**
 * Sends the given-up steps again, in the order they went: for each answered, its acks leave
 * `finished` (settled) and its fetched work joins what finish hands back. Once one goes
 * unanswered, that one and those after it are asked about (whichRan): the acks of those that
 * ran, or of all when nobody can tell, leave `finished` too; those of steps that never ran stay.
 */
export async function settleGivenUp(t: OpenTick, finished: TickOutcome[]): Promise<GivenUpSettled> {
  const fetched: TickWork[] = [];
  let left = finished;
  const steps = t.givenUp.splice(0);
  for (const [k, step] of steps.entries()) {
    let stepped: Stepped;
    try {
      stepped = await t.calls.send(protocol.step, step.args);
    } catch {
      const unanswered = steps.slice(k);
      const leave = leftOfFinish(await whichRan(t, unanswered), unanswered.length);
      const gone = unanswered.filter((_, i) => leave[i]);
      const done = new Set(gone.flatMap((s) => s.acks));
      const again = gone.flatMap(placedAlone);
      return { finished: left.filter((outcome) => !done.has(outcome)).concat(again), fetched, recovered: [] };
    }
    const settled = new Set(step.acks);
    left = left.filter((outcome) => !settled.has(outcome));
    const reply = takeStep(t, stepped, step);
    fetched.push(...reply.fetched);
    // A group it named by place alone and could not cut so: acked by text in finish.
    if (reply.resend) left = left.concat(reply.resend);
  }
  return { finished: left, fetched, recovered: steps.map((step) => step.error) };
}

/**
 * The outcomes of the groups `step` named by place alone, their batches marked to be acked apart, by
 * place and text (ack.ts `grouped`): the step may have run and left such a group listed (its reply,
 * `missed`, never read), so finish names it again; the script answers it missed when the step cut it
 * (lib/tick/ack-jobs.lua by_place.gone), and otherwise, intact, takes it as any group.
 */
function placedAlone(step: GivenUpStep): TickOutcome[] {
  const outcomes = byPlaceAlone(step.args.acks, step.plain);
  for (const o of outcomes) if (o.job.batch) o.job.batch.apart = true;
  return outcomes;
}

/**
 * For each unanswered step, whether its acks leave finish's: when it ran (it made them), or when
 * nobody can tell (`ran` undefined: the lease gone, or stamped before a restart), when they go to the
 * resurrector instead, a job run twice at worst, never lost. A step that never ran keeps its acks in
 * finish: given_up.lua fenced it, so it acts on nothing however late it arrives, past the lease too
 * (step.lua; test/integration/replay/given-up-step-after-lease.test.ts), and finish's ack is the only one.
 */
export function leftOfFinish(ran: readonly number[] | undefined, count: number): boolean[] {
  return Array.from({ length: count }, (_, i) => ran?.[i] !== 0);
}

/** For each step, 1 when it ran at Redis and 0 when it never will; undefined when nobody can tell. */
async function whichRan(t: OpenTick, steps: GivenUpStep[]): Promise<number[] | undefined> {
  try {
    const reply = await t.calls.send(protocol.given_up, {
      tickId: t.tickId,
      call: String(t.calls.next()),
      // A step's number and lane, the head of its call header ("7a/2/0 -": lib/tick/run-solo.lua).
      steps: steps.map((step) => /^\d+[abcd]?/.exec(step.args.call)?.[0] ?? "0"),
    });
    return reply.leaseHeld ? reply.ran : undefined;
  } catch {
    return undefined;
  }
}
