// npm run bench -- --adapter upstash: tickq over @upstash/redis through the
// local Upstash-compatible server, at 0 ms and 20 ms added latency a
// request. Prints jobs/s and HTTP requests per job.
import { findRedis } from "../src/platforms/node/find-redis.js";
import { startUpstashLocal } from "../tools/upstash-local/server.js";
import { upstashAdapter } from "../src/redis/upstash.js";
import { createTickq } from "../src/index.js";
import { Redis as UpstashRedis } from "@upstash/redis";
import { Redis } from "ioredis";

export async function runUpstashBench(jobs: number, latencies: number[], batch: number): Promise<void> {
  const found = await findRedis();
  const direct = new Redis(found.url);
  console.log(
    `tickq over @upstash/redis → local REST server → Redis at ${found.url}; ${jobs} no-op jobs, batch ${batch}\n`,
  );
  const rows = [];
  for (const latencyMs of latencies) {
    const server = await startUpstashLocal({ redisUrl: found.url, token: "bench-token-0123456789", latencyMs });
    const client = new UpstashRedis({
      url: server.url,
      token: server.token,
      automaticDeserialization: false,
      enableTelemetry: false,
      readYourWrites: false,
    });
    const prefix = `bench:upstash:${latencyMs}:${Date.now()}:`;
    const tq = createTickq({ redis: upstashAdapter(client), prefix, jobs: { noop: () => {} } });
    try {
      let t = performance.now();
      await tq.enqueueBulk(Array.from({ length: jobs }, (_, i) => ({ name: "noop", args: [i] })));
      const enqueueMs = performance.now() - t;
      const before = server.requests();
      t = performance.now();
      let done = 0;
      let roundTrips = 0;
      while (done < jobs) {
        const report = await tq.tick({ batch, concurrency: batch, budgetMs: 120_000 });
        if (report.fetched === 0) throw new Error(`drained only ${done} of ${jobs}`);
        done += report.succeeded;
        roundTrips += report.roundTrips;
      }
      const drainMs = performance.now() - t;
      const requests = server.requests() - before;
      rows.push({
        "added latency": `${latencyMs} ms`,
        "enqueue jobs/s": Math.round((jobs / enqueueMs) * 1000),
        "drain jobs/s": Math.round((jobs / drainMs) * 1000),
        "HTTP requests/job": (requests / jobs).toFixed(4),
        "reported round trips/job": (roundTrips / jobs).toFixed(4),
        "1 request a job, in series, would cap at": latencyMs ? `${Math.round(1000 / latencyMs)} jobs/s` : "—",
      });
    } finally {
      const keys = await direct.keys(`${prefix}*`);
      if (keys.length) await direct.del(...keys);
      await server.close();
    }
  }
  direct.disconnect();
  await found.stop();
  console.table(rows);
}
