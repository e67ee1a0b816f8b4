// Fan-out drain on the Node server: N jobs that each sleep 50 ms,
// concurrency 10 per tick, one POST /tick to start, then nothing but the
// ticks' own fan-out through the server's /tick until the queue is empty.
// maxParallel 1 chains one tick after another; 4 runs four at once. The
// highest number of live ticks seen (the registry, sampled every 20 ms)
// must never pass maxParallel.
import { Redis } from "ioredis";
import { startServer } from "../../src/platforms/node/server.js";
import { cleanUp } from "./latency-node.js";
import { pause, until } from "./stats.js";

export interface FanOutRow {
  maxParallel: number;
  jobs: number;
  seconds: number;
  jobsPerSecond: number;
  maxLive: number;
}

export async function fanOutDrain(
  redisUrl: string,
  n: number,
  maxParallel: number,
  sleepMs: number,
): Promise<FanOutRow> {
  const prefix = `bench:fanout-${maxParallel}-${Date.now()}:`;
  let done = 0;
  const server = await startServer({
    redisUrl,
    prefix,
    port: 0,
    secret: "bench-secret-0123456789",
    maxParallel,
    tickEveryMs: 0,
    tick: { budgetMs: 5_000, concurrency: 10, batch: 50 },
    jobs: {
      nap: async () => {
        await pause(sleepMs);
        done++;
      },
    },
  });
  const redis = new Redis(redisUrl);
  let maxLive = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const ids = await redis.hkeys(`${prefix}ticks`);
      const live = ids.length
        ? (await Promise.all(ids.map((id) => redis.exists(`${prefix}tick:${id}`)))).filter(Boolean).length
        : 0;
      maxLive = Math.max(maxLive, live);
      await pause(20);
    }
  })();
  try {
    for (let i = 0; i < n; i += 1_000)
      await server.tickq.enqueueBulk(Array.from({ length: Math.min(1_000, n - i) }, () => ({ name: "nap", args: [] })));
    const t = performance.now();
    const res = await fetch(`${server.url}/tick?wait=0`, {
      method: "POST",
      headers: { Authorization: "Bearer bench-secret-0123456789" },
    });
    if (res.status !== 202) throw new Error(`POST /tick answered ${res.status}`);
    if (!(await until(() => done >= n, 30 * 60_000, 20))) throw new Error(`drained ${done} of ${n}`);
    const seconds = (performance.now() - t) / 1000;
    return { maxParallel, jobs: n, seconds, jobsPerSecond: n / seconds, maxLive };
  } finally {
    sampling = false;
    await sampler;
    redis.disconnect();
    await server.close();
    await cleanUp(redisUrl, prefix);
  }
}
