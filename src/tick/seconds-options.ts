// The options that took seconds, renamed to take milliseconds (one unit for
// time across tickq): `deadMaxAgeSeconds` → `deadMaxAgeMs`, a job's and an
// ordered job's `backoff` → `backoffMs`. The seconds forms work for one more
// release and say so once per logger (once per process with the default
// console); giving both forms is refused, as which one wins would be a guess.
import { TickqError } from "../errors.js";
import { numberOption } from "../options.js";
import type { JobLogger } from "../job/context.js";

/** The options of createTickq's (src/types.ts) these read. */
interface SecondsForms {
  deadMaxAgeMs?: number;
  deadMaxAgeSeconds?: number;
  jobs: Readonly<Record<string, unknown>>;
  ordered?: Readonly<Record<string, unknown>>;
}

const DAY_MS = 24 * 3_600_000;
// Keyed by the app's own logger: apps that log apart each hear of it, and a test's does whatever ran before it.
const warned = new WeakMap<object, Set<string>>();

/** The dead set's age cap in seconds (as dead.lua takes it) from deadMaxAgeMs or the deprecated deadMaxAgeSeconds. */
export function deadMaxAgeSeconds(options: SecondsForms): number {
  const { deadMaxAgeMs, deadMaxAgeSeconds: seconds } = options;
  if (deadMaxAgeMs !== undefined && seconds !== undefined)
    throw new TickqError(
      "BAD_OPTIONS",
      "give deadMaxAgeMs or deadMaxAgeSeconds, not both: deadMaxAgeMs (milliseconds) replaces deadMaxAgeSeconds",
    );
  if (seconds !== undefined) return numberOption(seconds, 0, "deadMaxAgeSeconds", { min: 1 });
  return numberOption(deadMaxAgeMs, 180 * DAY_MS, "deadMaxAgeMs", { min: 1_000 }) / 1000;
}

/** Refuses a job with both backoff forms; warns once per logger (`owner`: the app's own) for each seconds form in use. */
export function warnSecondsForms(options: SecondsForms, logger: JobLogger, owner: object): void {
  if (options.deadMaxAgeSeconds !== undefined)
    once(
      logger,
      owner,
      "deadMaxAgeSeconds",
      "deadMaxAgeSeconds is deprecated: use deadMaxAgeMs (milliseconds, e.g. 30 * 86_400_000 for 30 days)",
    );
  const registries = [
    ["jobs", options.jobs],
    ["ordered", options.ordered ?? {}],
  ] as const;
  for (const [where, registry] of registries) {
    for (const [name, definition] of Object.entries(registry)) {
      if (typeof definition !== "object" || definition === null || !("backoff" in definition)) continue;
      if ("backoffMs" in definition)
        throw new TickqError(
          "BAD_OPTIONS",
          `${where}.${name}: give backoffMs or backoff, not both: backoffMs (milliseconds) replaces backoff (seconds)`,
        );
      once(
        logger,
        owner,
        `${where}.backoff`,
        `${where}.${name}.backoff returns seconds and is deprecated: use backoffMs, which returns milliseconds or a duration string ("30s")`,
      );
    }
  }
}

function once(logger: JobLogger, owner: object, key: string, line: string): void {
  const said = warned.get(owner) ?? new Set<string>();
  warned.set(owner, said);
  if (said.has(key)) return;
  said.add(key);
  logger.warn(`tickq: ${line}; the seconds form is removed in the next release`);
}
