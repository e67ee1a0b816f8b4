// tq.queues.list: every queue, its size, whether it is paused, when a tick
// last served it, and its latency, in one read; the queues the `queues` option lists
// are listed before their first job too.
import type { Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import type { QueueInfo } from "./types.js";

export async function listQueues(runtime: Runtime): Promise<QueueInfo[]> {
  const queues = await runCall(
    runtime,
    protocol.queues,
    { queues: runtime.keys.queues, paused: `${runtime.prefix}paused` },
    {},
  );
  // The queues the `queues` option lists, before their first job too (stats() does the same).
  const known = new Set(queues.map((q) => q.name));
  const declared = runtime.declaredQueues
    .filter((name) => !known.has(name))
    .map((name) => ({ name, size: 0, paused: false, servedMs: 0, latencyMs: 0 }));
  return [...queues, ...declared]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((q) => ({
      name: q.name,
      size: q.size,
      paused: q.paused,
      lastServedAt: q.servedMs > 0 ? q.servedMs : null,
      latencyMs: q.latencyMs,
    }));
}
