// "tickq/testing": a tickq for tests, on a real Redis, with a virtual clock. Not in the
// Worker or Vercel bundles: a test runner imports it, never a deployment.
import { createTickq } from "../index.js";
import { TickqError } from "../errors.js";
import type { OrderedRegistry } from "../ordered/types.js";
import { VIRTUAL_CLOCK } from "../tick/clock.js";
import type { Tickq } from "../tickq.js";
import type { JobRegistry } from "../job/definition.js";
import type { TickqOptions } from "../types.js";
import type { WorkflowInputs } from "../workflows/types.js";
import { type TestClock, testClock } from "./clock.js";
import { claimPrefix, clockCall, freshPrefix } from "./prefix.js";
import { type IdleReport, idleRunner, type RunUntilIdleOptions } from "./run-until-idle.js";

export type { TestClock } from "./clock.js";
export type { IdleReport, JobCounts, RunCounts, RunUntilIdleOptions } from "./run-until-idle.js";

/** createTestTickq's options: createTickq's, with `prefix` optional (default: a fresh one) and one partition. */
export type TestTickqOptions<
  J extends JobRegistry,
  O extends OrderedRegistry = Record<never, never>,
  W extends WorkflowInputs = Record<never, never>,
> = Omit<TickqOptions<J, O, W>, "partitions">;

/** What createTestTickq answers. */
export interface TestTickq<
  J extends JobRegistry,
  O extends OrderedRegistry = Record<never, never>,
  W extends WorkflowInputs = Record<never, never>,
> {
  /** The tickq under test: enqueue, start workflows, send events, read stats as in production. */
  tq: Tickq<J, O, W>;
  /** The virtual clock every time tickq reads follows. */
  clock: TestClock;
  /** Ticks until nothing is due at the clock's now; fails after `maxTicks` (default 100). */
  runUntilIdle(options?: RunUntilIdleOptions): Promise<IdleReport>;
  /** Deletes every key under the test's prefix. The Redis client stays open: it is the caller's. */
  close(): Promise<void>;
}

/**
 * A tickq for tests: a real Redis (any adapter) under a fresh key prefix whose clock is
 * virtual, so `clock.advance("3d")` makes a 3-day sleep due at once. A prefix that holds a
 * deployment's keys is refused, and a production tickq refuses a test's prefix.
 * @example
 * const { tq, clock, runUntilIdle, close } = await createTestTickq({ redis, jobs });
 * await tq.enqueue("email", ["a@example.com"], { delayMs: 3_600_000 });
 * await clock.advance("1h");
 * expect((await runUntilIdle()).jobs.email?.succeeded).toBe(1);
 * await close();
 */
export async function createTestTickq<
  J extends JobRegistry,
  O extends OrderedRegistry = Record<never, never>,
  W extends WorkflowInputs = Record<never, never>,
>(options: TestTickqOptions<J, O, W>): Promise<TestTickq<J, O, W>> {
  if ((options as { partitions?: unknown }).partitions !== undefined) {
    throw new TickqError("BAD_OPTIONS", "createTestTickq takes no `partitions`: a test tickq runs on one key space");
  }
  const prefix = options.prefix ?? freshPrefix();
  // createTickq checks every option before Redis is asked anything.
  const tq = createTickq({ ...options, prefix, [VIRTUAL_CLOCK]: true } as TickqOptions<J, O, W>);
  const claimed = await claimPrefix(options.redis, prefix);
  return {
    tq,
    clock: testClock(options.redis, prefix, claimed),
    runUntilIdle: idleRunner(tq as unknown as Parameters<typeof idleRunner>[0]),
    close: async () => {
      await clockCall(options.redis, prefix, "clear");
    },
  };
}
export { testJobContext, type TestJobContext, type TestJobContextOptions } from "./job-context.js";
