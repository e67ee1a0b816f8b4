// Job states: checking a name given by a caller, and where each one lives.
import { TickqError } from "../errors.js";
import type { JobState } from "./types.js";

/** Every {@link JobState}, for checking a state name a caller gives. */
export const JOB_STATES: readonly JobState[] = [
  "queued",
  "scheduled",
  "retry",
  "dead",
  "running",
  "succeeded",
  "cancelled",
  "expired",
];

/** The sorted set of each state kept in one. */
export const SORTED_SETS = {
  scheduled: "schedule",
  retry: "retry",
  dead: "dead",
  succeeded: "succeeded",
  cancelled: "cancelled",
  expired: "expired",
} as const;

/** The states kept as history, each in a sorted set scored by when the job ended: listed newest first by default. */
export const HISTORY_STATES: readonly JobState[] = ["succeeded", "cancelled", "expired"];
export type SortedState = keyof typeof SORTED_SETS;

export const isSorted = (state: JobState): state is SortedState => Object.hasOwn(SORTED_SETS, state);

/** `value` as one of `allowed`, or a TickqError BAD_STATE naming them. */
export function readState<S extends JobState>(value: unknown, allowed: readonly S[], what: string): S {
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as S;
  throw new TickqError(
    "BAD_STATE",
    `${what}: state must be one of ${allowed.join(", ")}; got ${JSON.stringify(value)}`,
  );
}

/** The key (under the prefix) a queued or sorted-set job sits in. */
export function sourceOf(state: Exclude<JobState, "running">, queue: string): string {
  return state === "queued" ? `queue:${queue}` : SORTED_SETS[state];
}
