// ctx, as a handler gets it. A class, so a plain job costs one object and no
// closure per feature it does not use: `signal` is a getter on the prototype
// that makes the job's own signal (one a cancel aborts: the `signalFor` job
// hook, src/cancel/) only when a handler reads it, and `progress` one that
// binds the job's reporter only when a handler reads it (a bound function a
// job was a tenth of a no-op job's main-thread work that is not JSON or I/O:
// bench/client-instructions.ts counts the difference); read once, it is the
// same function each time, so `const { progress } = ctx` still works. `log`
// too is made when first read (a job that logs nothing makes no logger).
import type { JobHooks } from "../capability.js";
import { JobLog } from "../job-log.js";
import type { Runtime } from "../runtime.js";
import type { JobContext } from "../../job/context.js";
import type { JobPayload } from "../../job/payload.js";

/** ctx.progress where no capability keeps it. */
const ignoreProgress = (): void => {};

export class RunContext implements JobContext {
  // Declared, not defined: a plain job's ctx has no `fence` at all, as before.
  declare fence?: number;
  readonly #hooks: JobHooks;
  readonly #parent: AbortSignal;
  #own: AbortSignal | undefined;
  #progress: ((value: unknown) => void) | undefined;
  readonly #runtime: Runtime;
  #log: JobLog | undefined;

  constructor(
    readonly jid: string,
    readonly queue: string,
    readonly attempt: number,
    readonly payload: JobPayload,
    // As arguments, not an object of them made a job (bench/client-instructions.ts).
    runtime: Runtime,
    hooks: JobHooks,
    signal: AbortSignal,
    fence: number | undefined,
  ) {
    if (fence !== undefined) this.fence = fence;
    this.#runtime = runtime;
    this.#hooks = hooks;
    this.#parent = signal;
  }

  /** The tickq logger, each line tagged with the job; made when a handler first reads it. */
  get log(): JobLog {
    this.#log ??= new JobLog(this.#runtime, this.payload, this.queue, this.attempt);
    return this.#log;
  }

  /** The run's last ctx.log lines, oldest first (none when the handler never logged). */
  loggedLines(): string[] {
    return this.#log?.lines ?? [];
  }

  /** Reports the job's progress (tq.jobs.progress reads it); a no-op where no capability keeps it. */
  get progress(): (value: unknown) => void {
    if (this.#progress === undefined) {
      const { progress } = this.#hooks;
      this.#progress = progress ? progress.bind(null, this.jid) : ignoreProgress;
    }
    return this.#progress;
  }

  /** Aborts at the tick's deadline, if the tick loses its lease, or when the job is cancelled. */
  get signal(): AbortSignal {
    this.#own ??= this.#hooks.signalFor?.(this.jid, this.#parent) ?? this.#parent;
    return this.#own;
  }

  /** The run ended: a signal made for it stops following the tick's. */
  ended(): void {
    if (this.#own) this.#hooks.ended?.(this.jid);
  }

  /** The context a timed run's handler gets: the same, with `signal` bounded by its timeout. */
  withSignal(signal: AbortSignal): JobContext {
    const { jid, queue, attempt, log, payload, progress, fence } = this;
    return fence === undefined
      ? { jid, queue, attempt, signal, log, payload, progress }
      : { jid, queue, attempt, signal, log, payload, progress, fence };
  }
}
