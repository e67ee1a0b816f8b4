// Enqueue-to-start latency on the Node server: POST /jobs, then the time
// until the handler starts (recorded in this same process). With kick, a
// tick starts right after the enqueue; without, the job waits for the
// server's tick loop (every second, npm start's default). Enqueues are
// spaced 50–150 ms apart (a fixed seed), one at a time.
import { startServer } from "../../src/platforms/node/server.js";
import { seededRng } from "../chaos/rng.js";
import { pause, until, type LatencyRow } from "./stats.js";

export async function nodeLatency(redisUrl: string, kick: boolean, samples: number): Promise<LatencyRow> {
  const started = new Map<number, number>();
  const prefix = `bench:latency-node-${kick ? "kick" : "loop"}-${Date.now()}:`;
  const server = await startServer({
    redisUrl,
    prefix,
    port: 0,
    secret: "bench-secret-0123456789",
    kick,
    tickEveryMs: 1_000,
    jobs: { mark: ([id]: [number]) => void started.set(id, performance.now()) },
  });
  const random = seededRng(7);
  const sent = new Map<number, number>();
  try {
    for (let i = 0; i < samples; i++) {
      sent.set(i, performance.now());
      const res = await fetch(`${server.url}/jobs`, {
        method: "POST",
        headers: { Authorization: "Bearer bench-secret-0123456789", "content-type": "application/json" },
        body: JSON.stringify({ name: "mark", args: [i] }),
      });
      if (res.status !== 201) throw new Error(`POST /jobs answered ${res.status}`);
      await pause(50 + random() * 100);
    }
    if (!(await until(() => started.size === samples, 10_000)))
      throw new Error(`only ${started.size} of ${samples} jobs started`);
  } finally {
    await server.close();
    await cleanUp(redisUrl, prefix);
  }
  return {
    runtime: "Node server",
    trigger: kick ? "kick on enqueue" : "tick loop (1 s)",
    samples: [...sent].map(([i, t]) => started.get(i)! - t),
  };
}

export async function cleanUp(redisUrl: string, prefix: string): Promise<void> {
  const { Redis } = await import("ioredis");
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
}
