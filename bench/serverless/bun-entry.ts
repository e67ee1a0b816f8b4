// The bench's Bun server (run by `bun`, bench/serverless/latency-runtime.ts): tickq's app on Bun.serve
// with kick on and the loop every second, as examples/bun runs, and one job that tells the bench, over
// HTTP, when it started. BENCH_URL, REDIS_URL, TICKQ_PREFIX and TICKQ_SECRET come from the env.
import { Redis } from "ioredis";
import { serveBun } from "../../src/platforms/bun/index.js";
import { ioredisAdapter } from "../../src/redis/ioredis.js";

const benchUrl = process.env.BENCH_URL;
const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const server = serveBun({
  redis: ioredisAdapter(redis),
  port: 0,
  kick: true,
  jobs: { mark: async ([id]: [number]) => void (await fetch(`${benchUrl}/started/${id}`)).body?.cancel() },
});
console.log(`listening on ${server.url}`);
process.on("SIGTERM", async () => {
  await server.stop();
  redis.disconnect();
  process.exit(0);
});
