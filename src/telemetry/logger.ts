// Where tickq's lines go: a console-like `logger` gets text, each line
// whole; a pino-shaped `structuredLogger` gets (fields, message), so the
// failure line and a job's own lines carry jid, name, queue and attempt as
// fields a log search can filter on instead of text to parse.
import type { JobLogger } from "../types.js";

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

export function logSink(logger: JobLogger, structured: StructuredLogger | undefined): LogSink {
  if (structured) {
    return {
      structured: true,
      write: (level, message, fields, rest = []) => structured[level](restFields(fields, rest), message),
    };
  }
  return { structured: false, write: (level, message, _fields, rest = []) => logger[level](message, ...rest) };
}

/** The console-like face of a sink, for lines that carry no fields of their own. */
export function textFace(sink: LogSink): JobLogger {
  return {
    info: (message, ...rest) => sink.write("info", message, {}, rest),
    warn: (message, ...rest) => sink.write("warn", message, {}, rest),
    error: (message, ...rest) => sink.write("error", message, {}, rest),
  };
}
