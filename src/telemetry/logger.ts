// Where tickq's lines go: a console-like `logger` gets text, each line
// whole; a pino-shaped `structuredLogger` gets (fields, message), so the
// failure line and a job's own lines carry jid, name, queue and attempt as
// fields a log search can filter on instead of text to parse. Either way a
// line's text is printable (src/printable.ts): a job's data cannot act on
// the terminal that shows the log, nor forge a line of it.
import { hasControl, printable, printableErrorText } from "../printable.js";
import type { JobLogger } from "../job/context.js";

export type LogLevel = "info" | "warn" | "error";

/** Fields of a structured line. */
export type LogFields = Record<string, unknown>;

/**
 * A logger with pino's method shapes, `info(fields, message)`: pino itself,
 * or any JSON logger that takes the fields first (the `structuredLogger` option).
 */
export interface StructuredLogger {
  /** Logs a line at info level. */
  info(fields: LogFields, message: string): void;
  /** Logs a line at warn level. */
  warn(fields: LogFields, message: string): void;
  /** Logs a line at error level. */
  error(fields: LogFields, message: string): void;
}

/** One place every tickq line goes through. */
export interface LogSink {
  /** True: fields travel as fields; false: the message must say everything. */
  readonly structured: boolean;
  write(level: LogLevel, message: string, fields: LogFields, rest?: unknown[]): void;
}

/** What a console-style call's extra arguments become as fields: an Error as `err` (pino's serializer name), the rest as `details`. */
function restFields(fields: LogFields, rest: unknown[]): LogFields {
  if (rest.length === 0) return fields;
  const err = rest.find((value) => value instanceof Error);
  const details = rest.filter((value) => value !== err);
  return { ...fields, ...(err ? { err } : {}), ...(details.length > 0 ? { details } : {}) };
}

/**
 * An Error whose message, name or stack frames hold a control character, as a copy of its class with them
 * printable (and its own fields, so a JSON logger's serializer still reads its type and code); else itself.
 */
function withPrintableText(error: Error): Error {
  try {
    const message = String(error.message);
    const name = String(error.name);
    const stack = typeof error.stack === "string" ? error.stack : "";
    if (!hasControl(message) && !hasControl(name) && !hasControl(stack.replaceAll("\n", ""))) return error;
    const copy = Object.assign(Object.create(Object.getPrototypeOf(error) as object) as Error, error);
    const text = { writable: true, configurable: true, enumerable: false };
    Object.defineProperty(copy, "message", { ...text, value: printable(message) });
    Object.defineProperty(copy, "stack", { ...text, value: printableErrorText(error) });
    if (hasControl(name)) Object.defineProperty(copy, "name", { ...text, value: printable(name) });
    return copy;
  } catch {
    return new Error("(an error that cannot be printed)");
  }
}

/** A value on its way to a log: strings and Errors printable, in a list too; objects as they are (console's inspect escapes their strings). */
function printableValue(value: unknown): unknown {
  if (typeof value === "string") return printable(value);
  if (value instanceof Error) return withPrintableText(value);
  if (Array.isArray(value)) return value.map(printableValue);
  return value;
}

/** Top-level string fields (jid, name, queue, errorClass…) and an Error printable; a JSON logger escapes C0 only. */
function printableFields(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) out[key] = printableValue(value);
  return out;
}

export function logSink(logger: JobLogger, structured: StructuredLogger | undefined): LogSink {
  if (structured) {
    return {
      structured: true,
      write: (level, message, fields, rest = []) =>
        structured[level](printableFields(restFields(fields, rest)), printable(String(message))),
    };
  }
  return {
    structured: false,
    // A message that is not a string (ctx.log.info(obj) from JavaScript) goes on as a value, for console to inspect.
    write: (level, message, _fields, rest = []) =>
      logger[level](printableValue(message) as string, ...rest.map(printableValue)),
  };
}

/** The console-like face of a sink, for lines that carry no fields of their own. */
export function textFace(sink: LogSink): JobLogger {
  return {
    info: (message, ...rest) => sink.write("info", message, {}, rest),
    warn: (message, ...rest) => sink.write("warn", message, {}, rest),
    error: (message, ...rest) => sink.write("error", message, {}, rest),
  };
}
