// A cancelled job's result (tq.jobs.result, enqueueAndWait): the same from its
// history record and from an awaited job's outcome record.
import type { CancelledResult } from "./types.js";

export function cancelledResult(from: string, finishedAt: number): CancelledResult {
  return {
    state: "cancelled",
    error: { class: "TickqCancelled", message: `cancelled (tq.jobs.cancel) while ${from}` },
    finishedAt,
  };
}
