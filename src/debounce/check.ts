// A job definition's `debounce`, checked at createTickq: its delays, and that
// it stands alone (flow control parks and claims jobs by keys of its own;
// merging enqueues under those would need both to agree on one job).
import { TickqError } from "../errors.js";
import { checkKnownKeys } from "../options.js";
import type { JobDefinition } from "../job/definition.js";
import type { Debounce } from "../job/limits.js";

const DEBOUNCE_KEYS: Readonly<Record<keyof Debounce, true>> = { key: true, delayMs: true, maxDelayMs: true };

/** The longest delay accepted: a week (a window lives in Redis that long). */
const MAX_DELAY_MS = 7 * 86_400_000;

export function checkDebounce(name: string, definition: JobDefinition<never>): void {
  const debounce = definition.debounce as Debounce | undefined;
  if (debounce === undefined) return;
  const bad = (message: string) => new TickqError("BAD_OPTIONS", `job "${name}": debounce ${message}`);
  if (typeof debounce !== "object" || debounce === null) throw bad("must be { key, delayMs, maxDelayMs }");
  checkKnownKeys(debounce, DEBOUNCE_KEYS, `job "${name}": debounce`);
  if (typeof debounce.key !== "function") throw bad("key must be a function (args) => string");
  const { delayMs, maxDelayMs } = debounce;
  if (!Number.isInteger(delayMs) || delayMs < 1 || delayMs > MAX_DELAY_MS)
    throw bad(`delayMs must be an integer from 1 to ${MAX_DELAY_MS}, got ${String(delayMs)}`);
  if (!Number.isInteger(maxDelayMs) || maxDelayMs < delayMs || maxDelayMs > MAX_DELAY_MS)
    throw bad(`maxDelayMs must be an integer from delayMs (${delayMs}) to ${MAX_DELAY_MS}, got ${String(maxDelayMs)}`);
  if (definition.uniqueKey !== undefined || definition.concurrency !== undefined || definition.rateLimit !== undefined)
    throw bad(
      "does not combine with flow control (uniqueKey, concurrency, rateLimit): debounce already keeps one job per key",
    );
}
