// The class and message tickq records for anything a job or a step throws: an Error's own, or a
// non-Error's type and JSON (src/thrown.ts), cut to Sidekiq's length. Never throws itself: a hostile
// thrown value (a throwing getter, a Proxy) must not break the failure path that records it.
import { thrownText, thrownType } from "./thrown.js";

/** Longest error_message kept, in characters, as Sidekiq caps it. */
const MAX_MESSAGE = 10_000;

function attempt<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

/** The first 10,000 characters (code points, as Ruby counts them), lone surrogates replaced as Ruby's scrub! does. */
export function capMessage(message: string): string {
  const clean = message.toWellFormed();
  return clean.length <= MAX_MESSAGE ? clean : Array.from(clean).slice(0, MAX_MESSAGE).join("");
}

/** Class and message of anything thrown (a non-Error: its type and its JSON, src/thrown.ts); never throws itself. */
export function describeError(error: unknown): { errorClass: string; message: string } {
  const isError = attempt(() => error instanceof Error, false);
  const errorClass = isError
    ? attempt(() => String((error as Error).name || (error as Error).constructor.name), "Error")
    : thrownType(error);
  const message = isError ? attempt(() => String((error as Error).message), "(unreadable message)") : thrownText(error);
  return { errorClass: errorClass || "Error", message: capMessage(message) };
}
