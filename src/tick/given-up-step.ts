// A step the tick sent and gave up on (given-up.ts): kept on the open tick,
// apart from it, so that the tick's type and the code reading it import no
// circle.
import type { StepArgs, TickOutcome } from "./capability.js";
import type { Outcome } from "./passes/ack.js";

/** A step sent and given up: what a resend needs, and what its reply is read against. */
export interface GivenUpStep {
  args: StepArgs;
  /** The outcomes it acked (the pipeline puts them back among the finished). */
  acks: TickOutcome[];
  plain: Outcome[];
  byPart: TickOutcome[][];
  sent: number;
  /** Why it was given up: the tick's failure, unless its resend answers (run.ts). */
  error: unknown;
}
