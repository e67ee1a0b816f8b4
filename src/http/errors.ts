// How the app answers an error it did not expect to handle itself. A
// caller's own mistake (400, 404, 409) is answered as it is: it says what
// was wrong with the request. Anything else is the deployment's business:
// a caller with a secret gets the reason (Redis unreachable, …) with
// credentials masked; anyone else gets a generic answer with a stable code,
// and the detail, masked, goes to the log.
import type { Context } from "hono";
import type { TickqError } from "../errors.js";
import { printableErrorText } from "../printable.js";
import { redact } from "../redact.js";
import { statusOf } from "./status.js";

/** The answer to a caller without a secret when the service cannot serve: 503, this code. */
export const UNAVAILABLE = { error: "service unavailable: see the server's log", code: "UNAVAILABLE" } as const;

/** The answer to a body over the app's `maxBodyBytes`: 413, this code. */
export const bodyTooLarge = (maxSize: number) =>
  ({
    error: `body over ${maxSize} bytes: send fewer jobs a request, or raise maxBodyBytes`,
    code: "BODY_TOO_LARGE",
  }) as const;

/** Logs an error with credentials masked, printable (its message may quote a request's or a job's bytes). */
export function logError(what: string, error: unknown, secrets: readonly (string | undefined)[] = []): void {
  console.error(`tickq: ${what}: ${redact(printableErrorText(error), secrets)}`);
}

/**
 * The same error with credentials masked in its message and stack, for a caller who prints it (a
 * server's start-up): its class and code stay.
 */
export function maskedError(error: unknown, secrets: readonly (string | undefined)[] = []): unknown {
  if (!(error instanceof Error)) return error;
  try {
    error.message = redact(error.message, secrets);
    if (typeof error.stack === "string") error.stack = redact(error.stack, secrets);
  } catch {
    // a frozen error: thrown as it is
  }
  return error;
}

export function answerError(
  c: Context,
  error: unknown,
  authenticated: boolean,
  secrets: readonly string[] = [],
  logged?: (error: unknown) => boolean,
): Response {
  const status = statusOf(error);
  if (status !== undefined && status < 500) {
    return c.json({ error: redact((error as TickqError).message, secrets), code: (error as TickqError).code }, status);
  }
  if (status !== undefined && authenticated) {
    return c.json({ error: redact((error as TickqError).message, secrets), code: (error as TickqError).code }, status);
  }
  if (!logged?.(error)) logError("request failed", error, secrets);
  if (status !== undefined) return c.json(UNAVAILABLE, 503);
  return c.json({ error: "internal error", code: "INTERNAL" }, 500);
}
