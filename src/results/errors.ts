// What tq.enqueueAndWait throws when the job does not give it a value.
import { TickqError } from "../errors.js";
import type { JobError } from "./types.js";

/** The awaited job ended failed, dead or cancelled: `error` is the error its handler threw, as recorded (TickqCancelled for a cancel). */
export class JobFailedError extends TickqError {
  constructor(
    /** The awaited job's jid. */
    readonly jid: string,
    /** How it ended: dead (in the dead set), failed (discarded with `dead: false`) or cancelled (tq.jobs.cancel). */
    readonly state: "failed" | "dead" | "cancelled",
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
