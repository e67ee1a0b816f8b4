// Checks of numeric options, shared by createTickq and tick: nonsense is a
// TickqError naming the option, never a tick that quietly does nothing.
import { TickqError } from "./errors.js";

interface Bounds {
  min: number;
  integer?: boolean;
}

export function numberOption(value: number | undefined, fallback: number, name: string, bounds: Bounds): number {
  if (value === undefined) return fallback;
  const ok = typeof value === "number" && Number.isFinite(value) && value >= bounds.min && (!bounds.integer || Number.isInteger(value));
  if (!ok) {
    const kind = bounds.integer ? "an integer" : "a number";
    throw new TickqError("BAD_OPTIONS", `${name} must be ${kind} ≥ ${bounds.min}, got ${String(value)}`);
  }
  return value;
}
