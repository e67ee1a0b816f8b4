// ctx.progress: a running job's last reported value, buffered in the process
// and sent with the next call any tick of it makes anyway (a step's results
// section, or the lease's extend, every leaseMs / 3), never a round trip per
// update. Only the last value of each job is sent; Redis keeps it under
// `progress:JID` for an hour after its last report.
import { TickqError } from "../errors.js";
import { utf8Bytes } from "../job/size.js";

/** Largest progress value, in bytes of its JSON. */
export const MAX_PROGRESS_BYTES = 4_096;

/** jid → the JSON of its last value, not sent yet. */
export type ProgressBuffer = Map<string, string>;

/** Records `value` as the job's progress; throws BAD_ARGS for a value JSON cannot carry or one over 4 KiB. */
export function reportProgress(buffer: ProgressBuffer, jid: string, value: unknown): void {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new TickqError(
      "BAD_ARGS",
      `ctx.progress: the value is not JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (json === undefined) throw new TickqError("BAD_ARGS", `ctx.progress: the value is not JSON (a ${typeof value})`);
  if (json.length > MAX_PROGRESS_BYTES / 3 && utf8Bytes(json) > MAX_PROGRESS_BYTES) {
    throw new TickqError(
      "BAD_ARGS",
      `ctx.progress: the value is ${utf8Bytes(json)} bytes of JSON, over ${MAX_PROGRESS_BYTES}: report a number or a small object`,
    );
  }
  buffer.set(jid, json);
}

/** Takes what is buffered, as jid, value pairs; the buffer is empty after. */
export function takeProgress(buffer: ProgressBuffer): [string, string][] {
  if (buffer.size === 0) return [];
  const taken = [...buffer];
  buffer.clear();
  return taken;
}
