// examples/bun, run by the real Bun binary (the `bun` package) as its README says (bun run
// src/server.ts), against the test Redis: a signup through its own route runs the welcome email job.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../../scripts/tickq-source.mjs";
import {
  outputHolding,
  processedUnder,
  startExample,
  type ExampleRunner,
  type RunningExample,
} from "../../helpers/examples.js";
import { deleteUnder, directRedis, redisUrl, uniquePrefix } from "../../helpers/redis.js";

const bun: ExampleRunner = (tsconfigPath, entry) => ({
  command: join(repoRoot, "node_modules", ".bin", "bun"),
  args: ["run", "--tsconfig-override", tsconfigPath, entry],
});

// A machine that cannot run the `bun` package's binary opts out by name (TICKQ_SKIP_BUN=1, see
// .ci/require-tools.sh); otherwise a binary that does not run fails the run.
describe.skipIf(process.env.TICKQ_SKIP_BUN === "1")("examples/bun under Bun", () => {
  const redis = directRedis();
  const prefix = uniquePrefix("example-bun");
  let service: RunningExample | undefined;

  beforeAll(async () => {
    service = await startExample(
      "bun",
      "src/server.ts",
      { REDIS_URL: redisUrl(), TICKQ_PREFIX: prefix, PORT: "0", TICKQ_SECRET: "bun-example-secret-0123" },
      bun,
    );
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  it("runs the welcome email of a POST /signup", async () => {
    const res = await fetch(`${service!.url}/signup`, {
      method: "POST",
      body: JSON.stringify({ email: "ada@example.com" }),
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(201);
    expect(await processedUnder(redis, prefix, 1)).toBe(1);
    const sent = "welcome email sent to ada@example.com";
    expect(await outputHolding(service!, sent)).toContain(sent);
    expect(service!.output()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
  });

  it("serves tickq's routes behind the secret, and ticks by itself", async () => {
    expect((await fetch(`${service!.url}/stats`)).status).toBe(401);
    const auth = { Authorization: "Bearer bun-example-secret-0123" };
    let health: { lastTickAt?: number | null } = {};
    for (let i = 0; i < 50 && !health.lastTickAt; i++) {
      await new Promise((r) => setTimeout(r, 100));
      health = await (await fetch(`${service!.url}/health`, { headers: auth })).json();
    }
    expect(health.lastTickAt).toEqual(expect.any(Number));
  });
});
