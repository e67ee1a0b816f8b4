// Queue names and jids travel as Redis key parts, as words of a tick's
// registration and inside job JSON: no whitespace, no lone surrogates
// (which UTF-8 cannot carry, so Redis would see another name).
import { hasControl } from "./printable.js";

export function isCleanName(value: unknown, maxLength = 256): value is string {
  return (
    typeof value === "string" && value !== "" && value.length <= maxLength && !/\s/.test(value) && value.isWellFormed()
  );
}

/**
 * A clean name without control characters (C0, C1, DEL), which no terminal or log can show as they are:
 * what enqueue, start and the options accept for a name tickq creates. Reads take any clean name, so an
 * older job or one a Ruby client wrote can still be found, retried or deleted.
 */
export function isPrintableName(value: unknown, maxLength = 256): value is string {
  return isCleanName(value, maxLength) && !hasControl(value);
}
