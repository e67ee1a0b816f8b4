// A step's reply read into what the pipeline takes: the outcomes it settled
// reported, the lease confirmed or lost, the work it fetched. One reading for
// a step answered in the pipeline and for a given-up step answered at the end
// (given-up.ts).
import type { StepReply } from "./pipeline.js";
import type { Stepped, TickOutcome, TickWork } from "./capability.js";
import type { GivenUpStep } from "./given-up-step.js";
import type { OpenTick } from "./open.js";
import { recount } from "./report.js";
import { learnClock } from "./runtime.js";
import { unplaced } from "./passes/ack.js";

/** What a step's reply tells: the outcomes it settled, the lease, the work it fetched. */
export function takeStep(
  t: OpenTick,
  stepped: Stepped,
  step: Pick<GivenUpStep, "args" | "plain" | "byPart" | "sent">,
): StepReply<TickWork, TickOutcome> {
  const { runtime, parts, report } = t;
  const { plain, byPart, sent } = step;
  learnClock(runtime, stepped.nowMs);
  report.deadEvicted += stepped.deadEvicted;
  t.events.settled(plain, stepped.missed, stepped.nowMs, stepped.cancelled);
  recount(report, plain, stepped.cancelled);
  const held = stepped.leaseHeld;
  if (held) t.fence.confirmed(sent);
  else t.lost();
  const read = parts.readFetched(stepped.fetched, stepped.flow);
  const fetched: TickWork[] = [...read.jobs];
  parts.list.forEach((part, k) => {
    const more = part.stepped?.(stepped, byPart[k]!, plain);
    if (more) fetched.push(...more);
  });
  report.fetched += fetched.length;
  const reply: StepReply<TickWork, TickOutcome> = { held, fetched, more: read.capped, parked: read.parked };
  if (stepped.drained === 1 || stepped.drained === 2) reply.drained = true;
  if (stepped.drained === 2 || stepped.drained === 3) reply.behind = true;
  if (stepped.ran !== undefined) reply.ran = stepped.ran;
  reply.sentOn = stepped.sentOn ?? 0;
  // Groups named by place alone and not cut so: still listed, sent again by text with the next acks.
  const resend = unplaced(step.args.acks, plain, stepped.missed);
  if (resend.length > 0) {
    for (const o of resend) t.placeDoubted.add(o.job.queue);
    reply.resend = resend;
  }
  return reply;
}
