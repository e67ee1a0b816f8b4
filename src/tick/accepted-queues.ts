// Which queues enqueue accepts. A tickq that lists its `queues` says what it
// serves; a job sent to a queue that neither that list nor any declared job
// names is, as a rule, a typo that would wait unserved, so enqueue refuses
// it (UNKNOWN_QUEUE). A producer that enqueues for other deployments sets
// `allowUndeclaredQueues`; a tickq that lists no queues accepts any.
import { TickqError } from "../errors.js";
import type { JobRegistry } from "../job/definition.js";
import type { QueueOrder } from "./queue-order.js";

/** The queues enqueue accepts, or undefined for any. */
export function acceptedQueues(
  order: QueueOrder | undefined,
  jobs: JobRegistry,
  allowUndeclared: boolean | undefined,
): ReadonlySet<string> | undefined {
  if (allowUndeclared !== undefined && typeof allowUndeclared !== "boolean")
    throw new TickqError("BAD_OPTIONS", `allowUndeclaredQueues must be true or false, got ${String(allowUndeclared)}`);
  if (order === undefined || allowUndeclared) return undefined;
  const names = new Set(order.map((q) => (Array.isArray(q) ? q[0] : q)));
  for (const definition of Object.values(jobs)) {
    // A job that names no queue sends its jobs to "default".
    names.add(typeof definition === "object" && definition.queue ? definition.queue : "default");
  }
  return names;
}

export function checkQueueAccepted(accepted: ReadonlySet<string> | undefined, job: string, queue: string): void {
  if (accepted === undefined || accepted.has(queue)) return;
  throw new TickqError(
    "UNKNOWN_QUEUE",
    `Job "${job}": queue ${JSON.stringify(queue)} is not one this tickq serves (${[...accepted].join(", ")}): ` +
      "fix the name, add it to createTickq({ queues }), or set allowUndeclaredQueues: true to enqueue for another deployment",
  );
}
