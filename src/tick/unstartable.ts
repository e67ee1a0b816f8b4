// What one tick met and could not start, sent in its finish call
// (lib/tick/record-unstartable.lua) so stats() can name it: jobs whose
// timeoutMs is above the tick's whole budget (they go back to the head of
// their queue, so every tick meets them again), and jobs of a name the tick
// does not declare (they fail as TickqUnknownJob and are retried).
import type { finish } from "../protocol/finish.js";
import type { Outcome } from "./passes/ack.js";
import { isUnknownJobError } from "./passes/execute.js";
import type { UnstartableReason } from "./unstartable-warnings.js";
import { STALE_MS } from "./warnings.js";

type UnstartableArgs = NonNullable<typeof finish.types>["args"]["unstartable"];

interface Met {
  reason: UnstartableReason;
  queue: string;
  limitMs: number;
  count: number;
}

export class UnstartableSeen {
  // A Map: job names are the user's (or another app's), never trusted as object keys.
  private readonly met = new Map<string, Met>();

  constructor(private readonly budgetMs: number) {}

  /** A job whose timeoutMs is above this tick's whole budget. */
  timeout(name: string, queue: string, limitMs: number): void {
    this.note(name, "timeout", queue, limitMs);
  }

  /** An outcome: counted when its job's name is one this tick does not declare. */
  outcome(o: Outcome | object): void {
    if (!("job" in o) || !("error" in o) || !isUnknownJobError(o.error)) return;
    this.note(String(o.payload?.class), "unknown", o.job.queue, 0);
  }

  /** finish's section: the budget (recorded for every queue the tick served) and what it met. */
  args(): UnstartableArgs {
    const entries = [...this.met].map(([name, m]) => ({ name, ...m }));
    return { budgetMs: Math.round(this.budgetMs), windowMs: STALE_MS, entries };
  }

  private note(name: string, reason: UnstartableReason, queue: string, limitMs: number): void {
    const m = this.met.get(name);
    if (m) m.count++;
    else this.met.set(name, { reason, queue, limitMs, count: 1 });
  }
}
