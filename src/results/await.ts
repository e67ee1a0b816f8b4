// tq.enqueueAndWait: the job is enqueued marked awaited (AWAIT_FIELD), so the
// tick that settles it writes its outcome to `result:JID` whatever
// keepCompleted says; this polls that key through the adapter, the same over
// TCP and REST, backing off from 10 ms to 500 ms so a short job answers
// fast and a long one costs about two reads a second. A blocking read would
// need a connection of its own on TCP and does not exist over REST.
import { monotonicMs } from "../tick/clock.js";
import { TickqError } from "../errors.js";
import type { Runtime } from "../tick/runtime.js";
import { JobFailedError, WaitTimeoutError } from "./errors.js";
import { readAwaited } from "./awaited.js";

export const DEFAULT_WAIT_MS = 30_000;
const FIRST_POLL_MS = 10;
const LAST_POLL_MS = 500;

export function checkWaitMs(timeoutMs: number | undefined): number {
  if (timeoutMs === undefined) return DEFAULT_WAIT_MS;
  if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new TickqError(
      "BAD_ARGS",
      `enqueueAndWait: timeoutMs must be a positive number of ms, got ${String(timeoutMs)}`,
    );
  }
  return timeoutMs;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The awaited job's value; throws JobFailedError when it ended failed or dead, JOB_EXPIRED when its expiry passed first, WaitTimeoutError past `timeoutMs`. */
export async function waitForResult(runtime: Runtime, jid: string, timeoutMs: number): Promise<unknown> {
  const deadline = monotonicMs() + timeoutMs;
  let pause = FIRST_POLL_MS;
  for (;;) {
    const { result } = await readAwaited(runtime, jid);
    if (result?.state === "succeeded") {
      if (result.resultError !== undefined)
        throw new TickqError("RESULT_NOT_KEPT", `job ${jid} succeeded, but ${result.resultError}`);
      return result.value;
    }
    if (result?.state === "dead" || result?.state === "failed" || result?.state === "cancelled")
      throw new JobFailedError(jid, result.state, result.error);
    if (result?.state === "expired")
      throw new TickqError("JOB_EXPIRED", `job ${jid} expired before it started: it will not run`);
    const left = deadline - monotonicMs();
    if (left <= 0) throw new WaitTimeoutError(jid, timeoutMs);
    await sleep(Math.min(pause, left));
    pause = Math.min(pause * 2, LAST_POLL_MS);
  }
}
