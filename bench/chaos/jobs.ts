// The chaos jobs, shared by the driver (which enqueues them) and the workers
// (which run them). Every job's args start with its id, which is also its
// jid: the ledger records by id and attempt.
//   plain    sleeps a little, succeeds
//   delayed  the same, enqueued with delayMs
//   flaky    fails on its first 1–2 attempts, then succeeds (retry: 3)
//   doomed   always fails; retry: 1, so it is dead after attempt 2
// backoff: () => 0 sends failures back at once, so nothing waits on Sidekiq's
// backoff. maxResurrections is set high by the workers: every SIGKILL and
// every lost lease resurrects jobs, and only a real poison job should die.
import type { JobContext, JobRegistry } from "../../src/types.js";
import type { Ledger } from "./ledger.js";
import { between, sleep, type Rng } from "./rng.js";

export type JobKind = "plain" | "delayed" | "flaky" | "doomed";
export const JOB_KINDS: JobKind[] = ["plain", "delayed", "flaky", "doomed"];

/** [id, sleep ms, failing attempts] */
export type ChaosArgs = [string, number, number];

export interface PlannedJob {
  id: string;
  kind: JobKind;
  args: ChaosArgs;
  delayMs?: number;
  /** Attempts it takes to succeed or go dead: each is one acked `processed`. */
  attempts: number;
}

const DOOMED_RETRIES = 1;
const FLAKY_RETRIES = 3;

export function chaosJobs(ledger: Ledger) {
  const handler = (fails: (attempt: number, failures: number) => boolean) => async ([id, ms, failures]: ChaosArgs, ctx: JobContext) => {
    await ledger.start(id, ctx.attempt);
    if (ms > 0) await sleep(ms);
    const failing = fails(ctx.attempt, failures);
    await ledger.finish(id, ctx.attempt, !failing);
    if (failing) throw new Error(`chaos: ${id} fails on attempt ${ctx.attempt}`);
  };
  const succeeds = handler(() => false);
  return {
    plain: succeeds,
    delayed: succeeds,
    flaky: { retry: FLAKY_RETRIES, backoff: () => 0, perform: handler((attempt, failures) => attempt <= failures) },
    doomed: { retry: DOOMED_RETRIES, backoff: () => 0, perform: handler(() => true) },
  } satisfies JobRegistry;
}

/** `count` jobs: 55 % plain, 20 % delayed (due within maxDelayMs), 15 % flaky, 10 % doomed. */
export function planJobs(count: number, rng: Rng, tag: string, maxDelayMs: number): PlannedJob[] {
  return Array.from({ length: count }, (_, i) => {
    const r = rng();
    const kind: JobKind = r < 0.55 ? "plain" : r < 0.75 ? "delayed" : r < 0.9 ? "flaky" : "doomed";
    const id = `${tag}-${kind}-${i}`;
    const ms = between(rng, 0, 40);
    if (kind === "flaky") {
      const failures = between(rng, 1, 2);
      return { id, kind, args: [id, ms, failures], attempts: failures + 1 };
    }
    if (kind === "doomed") return { id, kind, args: [id, ms, 0], attempts: DOOMED_RETRIES + 1 };
    const job: PlannedJob = { id, kind, args: [id, ms, 0], attempts: 1 };
    if (kind === "delayed") job.delayMs = between(rng, 100, Math.max(100, maxDelayMs));
    return job;
  });
}
