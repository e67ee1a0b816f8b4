// examples/deno's Deno.cron, for real: a job enqueued with no kick runs at the next whole minute,
// ticked by the cron that serveDeno registered. Waits up to ~80 s, so it runs apart from `npm test`
// (`npm run test:scheduled`, which CI calls).
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTickq } from "../../src/index.js";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { repoRoot } from "../../scripts/tickq-source.mjs";
import { startExample, type RunningExample } from "../helpers/examples.js";
import { denoSourcesConfig } from "../helpers/deno-config.js";
import { deleteUnder, directRedis, redisUrl, sleep, uniquePrefix } from "../helpers/redis.js";

// TICKQ_SKIP_DENO=1 opts a machine that cannot run the `deno` binary out (.ci/require-tools.sh).
describe.skipIf(process.env.TICKQ_SKIP_DENO === "1")("examples/deno's Deno.cron", () => {
  const redis = directRedis();
  const prefix = uniquePrefix("deno-cron");
  const config = denoSourcesConfig();
  let service: RunningExample | undefined;

  beforeAll(async () => {
    service = await startExample(
      "deno",
      "src/main.ts",
      {
        REDIS_URL: redisUrl(),
        TICKQ_PREFIX: prefix,
        PORT: "0",
        TICKQ_SECRET: "deno-cron-secret-0123456",
        NO_COLOR: "1",
      },
      (_tsconfig, entry) => ({
        command: join(repoRoot, "node_modules", ".bin", "deno"),
        args: ["run", "--allow-net", "--allow-env", "--allow-read", "--unstable-cron", "--config", config.path, entry],
      }),
    );
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    config.remove();
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  it("runs a job enqueued without a kick at the next whole minute", async () => {
    const client = new Redis(redisUrl());
    const tq = createTickq({ redis: ioredisAdapter(client), prefix, jobs: { sendWelcomeEmail: () => {} } });
    await tq.enqueue("sendWelcomeEmail", ["cron@example.com"], { kick: false });
    client.disconnect();
    const sent = "welcome email sent to cron@example.com";
    for (let i = 0; i < 160 && !service!.output().includes(sent); i++) await sleep(500);
    expect(service!.output()).toContain(sent);
    expect(Number(await redis.get(`${prefix}stat:processed`))).toBe(1);
  });
});
