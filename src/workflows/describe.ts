// Whatever a workflow threw, as a name and a message, defensively: a
// non-Error by its type and JSON (src/thrown.ts), as a job's error is
// recorded; an object whose getters throw still describes.
import { thrownText, thrownType } from "../thrown.js";

export function describeError(error: unknown): { name: string; message: string } {
  try {
    if (error instanceof Error) return { name: error.name || "Error", message: String(error.message).slice(0, 10_000) };
    return { name: thrownType(error), message: thrownText(error).slice(0, 10_000) };
  } catch {
    return { name: "Error", message: "(an error that could not be described)" };
  }
}

/** Most of a step's stack kept in its record, for the dashboard: the frames that matter come first. */
const MAX_STACK = 4_000;

/** The error's stack, cut to MAX_STACK characters; undefined when it has none. */
export function stackOf(error: unknown): string | undefined {
  try {
    const stack = error instanceof Error ? error.stack : undefined;
    return typeof stack === "string" && stack !== "" ? stack.slice(0, MAX_STACK) : undefined;
  } catch {
    return undefined;
  }
}
