// Where a queue's jobs wait: its plain list, and with priorities or groups
// (src/order/) their sorted sets. Listing and clearing a queue walk every
// part. A part's tag sorts in walking order ("a" the list, "b" the priority
// set, "c:GROUP" each group by name), so a cursor that names a part gone
// since resumes at the next one.
import type { Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";

export interface QueuePart {
  tag: string;
  /** Its key under the prefix. */
  key: string;
  sorted: boolean;
}

export const LIST_TAG = "a";

/** Whether `tag` names a part (the list, the priority set or a group). */
export const isPartTag = (tag: unknown): tag is string =>
  typeof tag === "string" && (tag === "a" || tag === "b" || tag.startsWith("c:"));

export async function queueParts(runtime: Runtime, queue: string): Promise<QueuePart[]> {
  const { prio, groups } = await runCall(
    runtime,
    protocol.queue_parts,
    { ring: `${runtime.prefix}groups:${queue}` },
    { queue },
  );
  const parts: QueuePart[] = [{ tag: LIST_TAG, key: `queue:${queue}`, sorted: false }];
  if (prio) parts.push({ tag: "b", key: `prio:${queue}`, sorted: true });
  for (const group of groups) parts.push({ tag: `c:${group}`, key: `group:${queue} ${group}`, sorted: true });
  return parts;
}
