// Budget-aware starts: a job with a timeoutMs starts only while the tick's
// budget still holds its whole limit, so the deadline never cuts it short.
// One that does not fit what is left waits, queued, for a fresh tick
// ("later": the tick fetches nothing more and reports `more`); one longer
// than a whole tick's budget waits for a tick with a larger budget
// ("never" here): the logger says so once per job name, and the tick
// records it for stats() (src/tick/unstartable.ts).
import { monotonicMs } from "../clock.js";
import type { Runtime } from "../runtime.js";
import type { UnstartableSeen } from "../unstartable.js";
import type { FetchedJob } from "./fetch.js";
import { timeoutOf } from "./timeout.js";

type Startable = (job: FetchedJob) => "start" | "later" | "never";

const warned = new WeakMap<Runtime, Set<string>>();

/** undefined when no job has a timeoutMs: every job starts, nothing is parsed. */
export function budgetCheck(
  runtime: Runtime,
  deadline: number,
  budgetMs: number,
  unstartable: UnstartableSeen,
): Startable | undefined {
  if (!runtime.timeouts) return undefined;
  return (job) => {
    const limit = timeoutOf(runtime.jobs, job);
    if (limit === undefined || limit <= deadline - monotonicMs()) return "start";
    if (limit <= budgetMs) return "later";
    const name = String((JSON.parse(job.raw) as { class: unknown }).class);
    unstartable.timeout(name, job.queue, limit);
    warnOnce(runtime, name, limit, budgetMs);
    return "never";
  };
}

function warnOnce(runtime: Runtime, name: string, limit: number, budgetMs: number): void {
  const seen = warned.get(runtime) ?? new Set<string>();
  warned.set(runtime, seen);
  if (seen.has(name)) return;
  seen.add(name);
  // The budget arrives less the time spent before the first fetch (9999.998788…): a reader wants whole ms.
  runtime.logger.warn(
    `tickq: job ${name} has timeoutMs ${limit} but this tick's whole budget is ${Math.floor(budgetMs)} ms, so it cannot start it and it stays queued: ` +
      "raise the tick budget (tick({ budgetMs }), TICKQ_TICK_BUDGET_MS) or lower the job's timeoutMs",
  );
}
