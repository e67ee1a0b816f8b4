// What the Node server says while its Redis is down: one line when it goes
// down, a reminder at a growing interval (5 s, 10 s, 20 s… up to 5 min) and
// one line when it is back. ioredis reports every reconnect attempt and each
// call the server makes would report the same cause again; the errors the
// watch raised are remembered, so the rest of the server can leave them to it.

// The global read at each call, unlike the tick's clock (tick/clock.ts): a reminder a few times an
// hour need not save the accessor's cost, and a test can fake its time.
const monotonicMs = (): number => performance.now();

const FIRST_REMINDER_MS = 5_000;
const LONGEST_REMINDER_MS = 5 * 60_000;

export interface RedisWatch {
  /** ioredis reported an error: logged at once if Redis was up or the cause changed, else at the backoff. */
  failed(cause: string): void;
  /** ioredis is ready: one line if Redis had been down. */
  ready(): void;
  /** Why Redis is down, or undefined while it is up. */
  down(): string | undefined;
  /** An error to answer a call with while Redis is down; `logged` knows it. */
  unreachable(): Error;
  /** The error came from `unreachable()`: the watch has said it already. */
  logged(error: unknown): boolean;
  /** A log line that only repeats what the watch says (a lease not extended because Redis is down). */
  repeats(line: string): boolean;
}

export function redisWatch(
  shown: string,
  log: (line: string) => void,
  makeError: (message: string) => Error,
): RedisWatch {
  let cause: string | undefined;
  let since = 0;
  let lastLineAt = 0;
  let reminderMs = FIRST_REMINDER_MS;
  const raised = new WeakSet<object>();
  const what = `Redis at ${shown} is unreachable`;
  const forSeconds = () => Math.round((monotonicMs() - since) / 1000);
  return {
    failed: (message) => {
      const now = monotonicMs();
      if (cause === undefined || message !== cause) {
        if (cause === undefined) since = now;
        log(`tickq: ${what} (${message}): is it running? Check REDIS_URL`);
        lastLineAt = now;
        reminderMs = FIRST_REMINDER_MS;
      } else if (now - lastLineAt >= reminderMs) {
        log(`tickq: ${what} for ${forSeconds()} s now (${message}); requests answer 503 until it is back`);
        lastLineAt = now;
        reminderMs = Math.min(reminderMs * 2, LONGEST_REMINDER_MS);
      }
      cause = message;
    },
    ready: () => {
      if (cause !== undefined) log(`tickq: Redis at ${shown} is back after ${forSeconds()} s`);
      cause = undefined;
    },
    down: () => cause,
    unreachable: () => {
      const error = makeError(`${what} (${cause}): is it running? Check REDIS_URL`);
      raised.add(error);
      return error;
    },
    logged: (error) => typeof error === "object" && error !== null && raised.has(error),
    repeats: (line) => cause !== undefined && line.includes(what),
  };
}
