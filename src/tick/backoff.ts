// How long a failed job waits before its retry, in milliseconds: its own
// `backoffMs` (ms, or a duration string such as "30s"), else its `backoff`
// (seconds, Sidekiq's unit; deprecated), else Sidekiq's formula. A backoff
// that throws or answers nonsense falls back to Sidekiq's, so a bad backoff
// never loses the job.
import { type Duration, durationMs } from "../duration.js";

/** The backoffs a job or an ordered job may declare. */
export interface Backoffs {
  /** Milliseconds (or a duration string) to wait before retry number `count` (0-based). */
  backoffMs?: (count: number, error: unknown) => Duration;
  /** @deprecated Seconds: use `backoffMs`. */
  backoff?: (count: number, error: unknown) => number;
}

/** Sidekiq's backoff in milliseconds: (count**4 + 15 + rand(10 * (count + 1))) seconds. */
export function defaultBackoffMs(count: number): number {
  return (count ** 4 + 15 + Math.floor(Math.random() * (10 * (count + 1)))) * 1000;
}

/** The delay before retry number `count`, in ms; never throws. */
export function retryDelayMs(backoffs: Backoffs | undefined, count: number, error: unknown): number {
  const ms = backoffs?.backoffMs
    ? attempt(() => durationMs(backoffs.backoffMs!(count, error), "backoffMs"))
    : backoffs?.backoff
      ? attempt(() => secondsToMs(backoffs.backoff!(count, error)))
      : Number.NaN;
  return typeof ms === "number" && Number.isFinite(ms) && ms >= 0 ? ms : defaultBackoffMs(count);
}

/** Seconds as ms; anything but a number (a string "10" included) is nonsense, as it always was. */
function secondsToMs(seconds: unknown): number {
  return typeof seconds === "number" ? seconds * 1000 : Number.NaN;
}

function attempt(read: () => number): number {
  try {
    return read();
  } catch {
    return Number.NaN;
  }
}
