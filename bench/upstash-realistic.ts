// The realistic run over HTTP (npm run bench -- --adapter upstash): tickq
// over @upstash/redis through the local REST server, jobs sleeping 0–100 ms
// (fixed seed), concurrency 50, batch 100 and 50. Round trips/job is
// report.roundTrips summed ÷ jobs; HTTP requests/job, what the server served. The added latency is the
// server's `latencyMs` option: it waits that long before handling each
// request, so every round trip costs it once. BullMQ cannot run over HTTP.
// Two steps in flight (as shipped) and one (bench/upstash.ts' variants),
// run after run in turn, and beside them the same jobs through an in-memory
// pool (bench/systems/pool.ts, no Redis): the ceiling this machine's timers
// and the last, partly idle wave of jobs leave of the limit in the same run.
// Each round's tickq rate is also read against that round's pool run (÷ pool): a drain is one
// tick, which pays its first request (begin) and its last (the last acks) with no job running,
// so tickq reaches the pool less about two round trips of the ~4 s drain
// (bench/upstash-occupancy.ts splits a tick's idle slot-time by cause). Alone:
//   npx tsx bench/upstash-realistic.ts [--latency-ms 20] [--batch 100] [--runs 5] [--jobs 4000] [--seed 1]
//     [--private-redis]   on a redis-server of its own (no other work's scripts delay its requests)
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { type FoundRedis, findRedis, startPrivate } from "../src/platforms/node/find-redis.js";
import { startUpstashLocal } from "../tools/upstash-local/server.js";
import { durations, limitOf } from "./jobs.js";
import { CONCURRENCY } from "./realistic.js";
import { benchTickq, drainTicks, enqueueJobs } from "./systems/tickq.js";
import { poolSystem } from "./systems/pool.js";
import { benchUpstashClient, STEP_VARIANTS, variantAdapter } from "./upstash.js";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

export async function runUpstashRealistic(
  jobs: readonly number[],
  seed: number,
  latencies: number[],
  runs: number,
  batches: readonly number[] = [100, 50],
  redis?: FoundRedis,
): Promise<void> {
  const found = redis ?? (await findRedis());
  const direct = new Redis(found.url);
  const n = jobs.length;
  const limit = limitOf(jobs, CONCURRENCY);
  console.log(
    `\nRealistic over HTTP: ${n} jobs sleeping 0–100 ms (seed ${seed}), concurrency ${CONCURRENCY}, ${runs} runs each; ` +
      `limit = concurrency ÷ mean duration = ${Math.round(limit)} jobs/s`,
  );
  const rows = [];
  const pool = await poolSystem("", "pool");
  const poolRates: number[] = [];
  const poolRun = async () => {
    await pool.enqueue(jobs);
    const t = performance.now();
    await pool.drain(n, { concurrency: CONCURRENCY });
    poolRates.push(Math.round((n / (performance.now() - t)) * 1000));
  };
  for (const latencyMs of latencies) {
    for (const batch of batches) {
      process.stdout.write(`measuring tickq batch ${batch} at ${latencyMs} ms…\n`);
      const server = await startUpstashLocal({ redisUrl: found.url, token: "bench-token-0123456789", latencyMs });
      const client = benchUpstashClient(server);
      const prefix = `bench:upstash-real:${latencyMs}:${batch}:${Date.now()}:`;
      const variants = STEP_VARIANTS.map((v) => ({
        ...v,
        tq: benchTickq(variantAdapter(client, v.overlap), prefix),
        rates: [] as number[],
        // Each round's rate ÷ the pool's in that round (the load moves both alike).
        ofPool: [] as number[],
        roundTrips: 0,
        requests: 0,
      }));
      try {
        const warmUp = jobs.slice(0, Math.max(100, Math.floor(n / 10)));
        for (const v of variants) {
          await enqueueJobs(v.tq, warmUp);
          await drainTicks(v.tq, warmUp.length, batch, CONCURRENCY, 120_000);
        }
        for (let run = 0; run < runs; run++) {
          if (run % 2 === 0) await poolRun();
          for (const v of run % 2 === 0 ? variants : [...variants].reverse()) {
            await enqueueJobs(v.tq, jobs);
            const before = server.requests();
            const t = performance.now();
            v.roundTrips += (await drainTicks(v.tq, n, batch, CONCURRENCY, 120_000)).roundTrips;
            v.rates.push(Math.round((n / (performance.now() - t)) * 1000));
            v.requests += server.requests() - before;
          }
          if (run % 2 === 1) await poolRun();
          for (const v of variants) v.ofPool.push(v.rates.at(-1)! / poolRates.at(-1)!);
        }
        for (const v of variants) rows.push({ latencyMs, batch, ...v });
      } finally {
        const keys = await direct.keys(`${prefix}*`);
        if (keys.length) await direct.del(...keys);
        await server.close();
      }
    }
  }
  direct.disconnect();
  if (!redis) await found.stop();
  console.table([
    ...rows.map((r) => ({
      system: `tickq batch ${r.batch}, ${r.label}`,
      "added latency": `${r.latencyMs} ms`,
      "jobs/s (median)": median(r.rates),
      "min–max": `${Math.min(...r.rates)}–${Math.max(...r.rates)}`,
      "% of limit": `${((median(r.rates) / limit) * 100).toFixed(1)} %`,
      "÷ pool by round": `${median(r.ofPool).toFixed(3)} (${Math.min(...r.ofPool).toFixed(3)}–${Math.max(...r.ofPool).toFixed(3)})`,
      "round trips/job": (r.roundTrips / (n * runs)).toFixed(4),
      "HTTP requests/job": (r.requests / (n * runs)).toFixed(4),
    })),
    {
      system: "in-memory pool (no Redis)",
      "added latency": "—",
      "jobs/s (median)": median(poolRates),
      "min–max": `${Math.min(...poolRates)}–${Math.max(...poolRates)}`,
      "% of limit": `${((median(poolRates) / limit) * 100).toFixed(1)} %`,
      "÷ pool by round": "1",
      "round trips/job": "0",
      "HTTP requests/job": "0",
    },
  ]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      "latency-ms": { type: "string", default: "20" },
      batch: { type: "string", default: "100" },
      runs: { type: "string", default: "5" },
      jobs: { type: "string", default: "4000" },
      seed: { type: "string", default: "1" },
      "private-redis": { type: "boolean", default: false },
    },
  });
  const seed = Number(values.seed);
  const redis = values["private-redis"] ? await startPrivate() : undefined;
  console.log(`load average at start ${load()}${redis ? `; a private redis-server at ${redis.url}` : ""}`);
  try {
    await runUpstashRealistic(
      durations(Number(values.jobs), seed),
      seed,
      values["latency-ms"].split(",").map(Number),
      Number(values.runs),
      values.batch.split(",").map(Number),
      redis,
    );
  } finally {
    await redis?.stop();
  }
  console.log(`load average at end ${load()}`);
}
