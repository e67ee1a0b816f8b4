// ctx.log: the tickq logger, each line tagged with the job, and the last
// lines of the run kept in memory so a failure can store them in the job
// (`tickq_log`), next to its error and backtrace. Keeping them costs an
// array push per line; they are written to Redis only when the job fails.
import type { LogFields, LogLevel } from "../telemetry/logger.js";
import { redisNowMs, type Runtime } from "./runtime.js";
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

/**
 * A class, so a job that logs costs one small object, not three closures; ctx makes it when the
 * handler first reads ctx.log, and its lines and fields when the handler first logs (a job that
 * logs nothing costs nothing here; bench/client-instructions.ts).
 */
export class JobLog implements JobLogger {
  #lines: string[] | undefined;

  /** `runtime`: its sink (`logs`), the lines kept of a run (`logLines`, 0 keeps none) and Redis' clock. */
  constructor(
    private readonly runtime: Runtime,
    private readonly payload: JobPayload,
    private readonly queue: string,
    private readonly attempt: number,
  ) {}

  /** The last `keep` lines of this run, oldest first. */
  get lines(): string[] {
    return this.#lines ?? [];
  }

  /** A text line names the job itself; a structured one carries its jid, name, queue and attempt as fields. */
  private write(level: LogLevel, message: string, rest: unknown[]): void {
    const { payload } = this;
    const { logs } = this.runtime;
    const text = logs.structured ? message : `[${payload.class} ${payload.jid}] ${message}`;
    const fields: LogFields = { jid: payload.jid, name: payload.class, queue: this.queue, attempt: this.attempt };
    logs.write(level, text, fields, rest);
  }

  private remember(level: string, message: unknown, rest: unknown[]): void {
    const keep = this.runtime.logLines;
    if (keep <= 0) return;
    const line = `${new Date(redisNowMs(this.runtime)).toISOString()} ${level} ${String(message)}${rest.length > 0 ? formatRest(rest) : ""}`;
    this.#lines ??= [];
    this.#lines.push((line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line).toWellFormed());
    if (this.#lines.length > keep) this.#lines.shift();
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
