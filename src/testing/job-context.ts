// A handler's `ctx` for a unit test of the handler alone: no Redis, no tick. What the handler
// logs and reports as progress is kept for the test to read.
import type { JobContext } from "../job/context.js";
import type { JobPayload } from "../job/payload.js";

/** What testJobContext takes; every field has a default. */
export interface TestJobContextOptions {
  /** The job's name (payload.class); default "job". */
  name?: string;
  /** The args in the payload; default []. */
  args?: unknown[];
  /** 1 for the first run, 2 for the first retry; default 1. */
  attempt?: number;
  /** Aborted by the test to play a deadline or a cancel; default a signal that never aborts. */
  signal?: AbortSignal;
  /** ctx.fence, as ordered and unique jobs get it; default absent. */
  fence?: number;
}

/** A ctx and what the handler did with it. */
export interface TestJobContext {
  /** The ctx to pass the handler: jid "test-jid", queue "default", and the options' values. */
  ctx: JobContext;
  /** Every ctx.log line, as "level message". */
  logs: string[];
  /** Every ctx.progress value, in order. */
  progress: unknown[];
}

/**
 * A `ctx` for calling a handler directly in a unit test.
 * @example
 * const { ctx, logs } = testJobContext({ args: ["a@example.com"] });
 * await sendWelcome(["a@example.com"], ctx);
 */
export function testJobContext(options: TestJobContextOptions = {}): TestJobContext {
  const logs: string[] = [];
  const progress: unknown[] = [];
  const jid = "test-jid";
  const payload: JobPayload = {
    class: options.name ?? "job",
    args: options.args ?? [],
    jid,
    queue: "default",
    retry: true,
    created_at: Date.now() / 1000,
    enqueued_at: Date.now() / 1000,
  };
  const ctx: JobContext = {
    jid,
    queue: "default",
    attempt: options.attempt ?? 1,
    signal: options.signal ?? new AbortController().signal,
    log: {
      info: (m) => void logs.push(`info ${m}`),
      warn: (m) => void logs.push(`warn ${m}`),
      error: (m) => void logs.push(`error ${m}`),
    },
    payload,
    progress: (value) => void progress.push(value),
    ...(options.fence === undefined ? {} : { fence: options.fence }),
  };
  return { ctx, logs, progress };
}
