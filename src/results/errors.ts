// What tq.enqueueAndWait throws when the job does not give it a value.
import { TickqError } from "../errors.js";
import type { JobError } from "./types.js";

/** The awaited job ended failed or dead: `error` is the error its handler threw, as recorded. */
export class JobFailedError extends TickqError {
  constructor(
    /** The awaited job's jid. */
    readonly jid: string,
    /** How it ended: dead (in the dead set) or failed (discarded with `dead: false`). */
    readonly state: "failed" | "dead",
    /** The error its last run threw. */
    readonly error: JobError,
  ) {
    super("JOB_FAILED", `job ${jid} ended ${state}: ${error.class}: ${error.message}`);
    this.name = "JobFailedError";
  }
}

/** timeoutMs passed before the awaited job ended; it goes on, and tq.jobs.result(jid) reads its outcome later. */
export class WaitTimeoutError extends TickqError {
  constructor(
    /** The awaited job's jid: tq.jobs.result reads its outcome later. */
    readonly jid: string,
    /** How long it was waited for. */
    readonly timeoutMs: number,
  ) {
    super(
      "WAIT_TIMEOUT",
      `job ${jid} did not end within ${timeoutMs} ms; it goes on (tq.jobs.result("${jid}") reads its outcome later)`,
    );
    this.name = "WaitTimeoutError";
  }
}
