// Per-job time limits (JobDefinition.timeoutMs). A tick starts a job only
// while its budget still holds the job's whole limit, so a long job is never
// cut by the deadline half-way (it waits, queued, for a tick with room); a
// run that outlives its limit sees its signal abort and fails with
// TickqTimeout, which is retried with backoff like any failure. A deadline
// or a timeout is never mistaken for a tick that died (poison).
import { TickqError } from "../../errors.js";
import type { JobRegistry } from "../../job/definition.js";
import type { FetchedJob } from "./fetch.js";

/** Checks every `timeoutMs` at createTickq; true when some job has one. */
export function checkTimeouts(jobs: JobRegistry): boolean {
  let any = false;
  for (const [name, entry] of Object.entries(jobs)) {
    if (typeof entry === "function" || entry?.timeoutMs === undefined) continue;
    const ms = entry.timeoutMs;
    if (typeof ms !== "number" || !Number.isFinite(ms) || ms <= 0) {
      throw new TickqError(
        "BAD_OPTIONS",
        `jobs.${name}.timeoutMs must be a number of milliseconds > 0, got ${String(ms)}`,
      );
    }
    any = true;
  }
  return any;
}

/** The limit of a fetched job, read from its name; undefined when it has none (or cannot be read: execute says why). */
export function timeoutOf(jobs: JobRegistry, job: FetchedJob): number | undefined {
  let name: unknown;
  try {
    name = (JSON.parse(job.raw) as { class?: unknown }).class;
  } catch {
    return undefined;
  }
  if (typeof name !== "string" || !Object.hasOwn(jobs, name)) return undefined;
  const entry = jobs[name];
  return typeof entry === "function" ? undefined : entry?.timeoutMs;
}

export function timeoutError(name: string, timeoutMs: number): Error {
  const message =
    `job ${name} ran past its timeoutMs (${timeoutMs} ms) and was aborted: make it stop sooner (honour ctx.signal), ` +
    "raise its timeoutMs (a tick must have that much budget left to start it), or split it into smaller jobs";
  return Object.assign(new Error(message), { name: "TickqTimeout" });
}

/**
 * Runs `perform` with a signal that aborts at the tick's deadline or after
 * `timeoutMs`, whichever is first. Past the limit it rejects with
 * TickqTimeout once the handler settles, or after `graceMs` if it ignores
 * the abort (its slot is freed; the warning says it may still be running).
 */
export function runWithTimeout(
  perform: (signal: AbortSignal) => Promise<unknown>,
  tickSignal: AbortSignal,
  limit: { name: string; timeoutMs: number; graceMs: number; onIgnored(): void },
): Promise<unknown> {
  const controller = new AbortController();
  const follow = () => controller.abort(tickSignal.reason);
  if (tickSignal.aborted) follow();
  else tickSignal.addEventListener("abort", follow, { once: true });
  const error = timeoutError(limit.name, limit.timeoutMs);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(error);
      timer = setTimeout(() => {
        limit.onIgnored();
        reject(error);
      }, limit.graceMs);
    }, limit.timeoutMs);
  });
  // A handler (or a plain middleware) that throws before it returns: a rejection like any other, so the
  // `finally` below still clears the timer and the listener (else the timer aborts, warns and rejects
  // `expired`, unhandled, long after the run failed).
  let started: Promise<unknown>;
  try {
    started = perform(controller.signal);
  } catch (thrown) {
    started = Promise.reject(thrown);
  }
  const work = started.then(
    (value) => (controller.signal.reason === error ? Promise.reject(error) : value),
    (reason: unknown) => Promise.reject(controller.signal.reason === error ? error : reason),
  );
  return Promise.race([work, expired]).finally(() => {
    clearTimeout(timer);
    tickSignal.removeEventListener("abort", follow);
  });
}
