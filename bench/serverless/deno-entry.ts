// The bench's Deno server (run by `deno`, bench/serverless/latency-runtime.ts): tickq's app on
// Deno.serve with kick on, as examples/deno runs (its cron off: it fires once a minute), ioredis from
// npm:, and one job that tells the bench, over HTTP, when it started. BENCH_URL, REDIS_URL,
// TICKQ_PREFIX and TICKQ_SECRET come from the env (Deno 2 has Node's `process`).
import { Redis } from "ioredis";
import { serveDeno } from "../../src/platforms/deno/index.js";
import { ioredisAdapter } from "../../src/redis/ioredis.js";

const benchUrl = process.env.BENCH_URL;
const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const server = serveDeno({
  redis: ioredisAdapter(redis),
  port: 0,
  kick: true,
  denoCron: false,
  jobs: { mark: async ([id]: [number]) => void (await fetch(`${benchUrl}/started/${id}`)).body?.cancel() },
});
console.log(`listening on ${server.url}`);
process.on("SIGTERM", async () => {
  await server.shutdown();
  redis.disconnect();
  process.exit(0);
});
