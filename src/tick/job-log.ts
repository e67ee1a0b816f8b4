// ctx.log: the tickq logger, each line tagged with the job, and the last
// lines of the run kept in memory so a failure can store them in the job
// (`tickq_log`), next to its error and backtrace. Keeping them costs an
// array push per line; they are written to Redis only when the job fails.
import type { LogFields, LogLevel, LogSink } from "../telemetry/logger.js";
import type { JobLogger } from "../job/context.js";
import type { JobPayload } from "../job/payload.js";

/** Longest kept line, in characters. */
const MAX_LINE = 500;

function formatRest(rest: unknown[]): string {
  let out = "";
  for (const value of rest) {
    let text: string;
    try {
      text =
        typeof value === "string"
          ? value
          : value instanceof Error
            ? `${value.name}: ${value.message}`
            : (JSON.stringify(value) ?? String(value));
    } catch {
      text = "(unprintable)";
    }
    out += ` ${text}`;
  }
  return out;
}

/** A class, so a job costs one small object, not three closures. */
export class JobLog implements JobLogger {
  /** The last `keep` lines of this run, oldest first. */
  readonly lines: string[] = [];

  /** `fields`: the job's jid, name, queue and attempt, for a structured logger. */
  constructor(
    private readonly logs: LogSink,
    private readonly payload: JobPayload,
    private readonly fields: LogFields,
    private readonly keep: number,
    private readonly clock: () => number,
  ) {}

  /** A text line names the job itself; a structured one carries it as fields. */
  private write(level: LogLevel, message: string, rest: unknown[]): void {
    const text = this.logs.structured ? message : `[${this.payload.class} ${this.payload.jid}] ${message}`;
    this.logs.write(level, text, this.fields, rest);
  }

  private remember(level: string, message: unknown, rest: unknown[]): void {
    if (this.keep <= 0) return;
    const line = `${new Date(this.clock()).toISOString()} ${level} ${String(message)}${rest.length > 0 ? formatRest(rest) : ""}`;
    this.lines.push((line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line).toWellFormed());
    if (this.lines.length > this.keep) this.lines.shift();
  }

  info(message: string, ...rest: unknown[]) {
    this.remember("INFO", message, rest);
    this.write("info", message, rest);
  }
  warn(message: string, ...rest: unknown[]) {
    this.remember("WARN", message, rest);
    this.write("warn", message, rest);
  }
  error(message: string, ...rest: unknown[]) {
    this.remember("ERROR", message, rest);
    this.write("error", message, rest);
  }
}
