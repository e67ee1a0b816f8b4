// tq.queues.list: every queue, its size, whether it is paused, and when a
// tick last served it, in one read.
import { asArray, asNumber } from "../redis/adapter.js";
import type { Runtime } from "../tick/runtime.js";
import { scripts } from "../lua/index.js";
import type { QueueInfo } from "./types.js";

export async function listQueues(runtime: Runtime): Promise<QueueInfo[]> {
  const reply = asArray(await runtime.run(scripts.queues, [runtime.keys.queues, `${runtime.prefix}paused`], [], { count: 0 }), "queues");
  const out: QueueInfo[] = [];
  for (let i = 0; i < reply.length; i += 4) {
    const served = asNumber(reply[i + 3]);
    out.push({ name: String(reply[i]), size: asNumber(reply[i + 1]), paused: asNumber(reply[i + 2]) === 1, lastServedAt: served > 0 ? served : null });
  }
  return out;
}
