// Checks of numeric options, shared by createTickq and tick: nonsense is a
// TickqError naming the option, never a tick that quietly does nothing.
import { TickqError } from "./errors.js";

interface Bounds {
  min: number;
  /** The largest value (none: any finite number). */
  max?: number;
  integer?: boolean;
}

/** setTimeout's longest delay: a longer one fires after 1 ms (Node, browsers, workerd). */
export const MAX_TIMER_MS = 2_147_483_647;

export function numberOption(value: number | undefined, fallback: number, name: string, bounds: Bounds): number {
  if (value === undefined) return fallback;
  const ok =
    typeof value === "number" &&
    Number.isFinite(value) &&
    value >= bounds.min &&
    (bounds.max === undefined || value <= bounds.max) &&
    (!bounds.integer || Number.isInteger(value));
  if (!ok) {
    const kind = bounds.integer ? "an integer" : "a number";
    const range = bounds.max === undefined ? `≥ ${bounds.min}` : `from ${bounds.min} to ${bounds.max}`;
    throw new TickqError("BAD_OPTIONS", `${name} must be ${kind} ${range}, got ${String(value)}`);
  }
  return value;
}

/**
 * Refuses a key that is not one of `known` (a typo such as `dely` would
 * otherwise be ignored): a TickqError naming it and the known ones.
 * `known` is a Record over the type's keys, so a new option that is not
 * listed fails the type check. `what` names the value in the error; a
 * function is called only for an error (a check that runs once an item
 * need not build its label each time).
 */
export function checkKnownKeys(
  value: object,
  known: Readonly<Record<string, true>>,
  what: string | (() => string),
  code: "BAD_OPTIONS" | "BAD_ARGS" = "BAD_OPTIONS",
): void {
  for (const key in value) {
    // Known first: most keys are, and that answers with one lookup.
    if (!Object.hasOwn(known, key) && Object.hasOwn(value, key)) {
      const label = typeof what === "string" ? what : what();
      throw new TickqError(
        code,
        `${label}: unknown option ${JSON.stringify(key)}; the options are ${Object.keys(known).join(", ")}`,
      );
    }
  }
}
