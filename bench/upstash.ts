// npm run bench -- --adapter upstash: tickq over @upstash/redis through the
// local Upstash-compatible server, at 0 ms and 20 ms added latency a
// request. Prints jobs/s and HTTP requests per job, with two steps in flight
// (the adapter's `separateRequests`, what upstashAdapter sets) and with one
// (the same adapter without it: the tick before issue 46), in alternating
// rounds in one run, and the share of the serial limit each reaches: one
// batch per request, requests one after another (batch ÷ latency).
import { loadavg } from "node:os";
import { findRedis } from "../src/platforms/node/find-redis.js";
import { startUpstashLocal } from "../tools/upstash-local/server.js";
import { upstashAdapter } from "../src/redis/upstash.js";
import { createTickq } from "../src/index.js";
import type { RedisAdapter } from "../src/redis/types.js";
import { Redis as UpstashRedis } from "@upstash/redis";
import { Redis } from "ioredis";
import { alternate, median, spread } from "./alternating.js";

/** The steps a tick keeps in flight over HTTP: two (as shipped) or one. */
export const STEP_VARIANTS = [
  { label: "two steps in flight", overlap: true },
  { label: "one step in flight", overlap: false },
] as const;

/** The bench's client of a local REST server: replies as Redis gives them, no telemetry, no read-your-writes sync. */
export function benchUpstashClient(server: { url: string; token: string }): UpstashRedis {
  return new UpstashRedis({
    url: server.url,
    token: server.token,
    automaticDeserialization: false,
    enableTelemetry: false,
    readYourWrites: false,
  });
}

/** The adapter as a variant has it: without `separateRequests`, one step at a time. */
export function variantAdapter(client: UpstashRedis, overlap: boolean): RedisAdapter {
  const adapter = upstashAdapter(client);
  return overlap ? adapter : { evalsha: adapter.evalsha, eval: adapter.eval };
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

export async function runUpstashBench(jobs: number, latencies: number[], batch: number, rounds = 3): Promise<void> {
  const found = await findRedis();
  const direct = new Redis(found.url);
  console.log(
    `tickq over @upstash/redis → local REST server → Redis at ${found.url}; ${jobs} no-op jobs, batch ${batch}, ` +
      `${rounds} alternating rounds; load average at start ${load()}\n`,
  );
  const rows = [];
  for (const latencyMs of latencies) {
    const server = await startUpstashLocal({ redisUrl: found.url, token: "bench-token-0123456789", latencyMs });
    const client = benchUpstashClient(server);
    const prefix = `bench:upstash:${latencyMs}:${Date.now()}:`;
    const tqs = new Map(
      STEP_VARIANTS.map((v) => [
        v,
        createTickq({ redis: variantAdapter(client, v.overlap), prefix, jobs: { noop: () => {} } }),
      ]),
    );
    try {
      const samples = await alternate({
        variants: STEP_VARIANTS,
        rounds,
        jobs,
        drain: async (v, n) => {
          const tq = tqs.get(v)!;
          await tq.enqueueBulk(Array.from({ length: n }, (_, i) => ({ name: "noop", args: [i] })));
          const before = server.requests();
          const t = performance.now();
          let done = 0;
          while (done < n) {
            const report = await tq.tick({ batch, concurrency: batch, budgetMs: 120_000 });
            if (report.fetched === 0) throw new Error(`drained only ${done} of ${n}`);
            done += report.succeeded;
          }
          return { rate: (n / (performance.now() - t)) * 1000, requests: (server.requests() - before) / n };
        },
      });
      const limit = latencyMs ? (batch * 1000) / latencyMs : undefined;
      for (const v of STEP_VARIANTS) {
        const rates = samples.get(v)!.map((s) => s.rate);
        rows.push({
          "added latency": `${latencyMs} ms`,
          steps: v.label,
          "drain jobs/s (median)": Math.round(median(rates)),
          "min–max": spread(rates),
          "% of serial limit": limit ? `${((median(rates) / limit) * 100).toFixed(1)} % of ${limit}` : "—",
          "HTTP requests/job": median(samples.get(v)!.map((s) => s.requests)).toFixed(4),
        });
      }
    } finally {
      const keys = await direct.keys(`${prefix}*`);
      if (keys.length) await direct.del(...keys);
      await server.close();
    }
  }
  direct.disconnect();
  await found.stop();
  console.table(rows);
  console.log(`load average at end ${load()}`);
}
