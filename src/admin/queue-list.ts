// tq.queues.list: every queue, its size, whether it is paused, when a tick
// last served it, and its latency, in one read.
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
  return queues.map((q) => ({
    name: q.name,
    size: q.size,
    paused: q.paused,
    lastServedAt: q.servedMs > 0 ? q.servedMs : null,
    latencyMs: q.latencyMs,
  }));
}
