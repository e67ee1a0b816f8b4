// examples/deno, run by the real Deno binary (the `deno` package) with `--unstable-cron` as its task
// does, over both of its Redis connections: ioredis over TCP (REDIS_URL) and Upstash's REST API (the
// local REST server). `tickq/…` maps to this repository's sources through a config written here, in
// place of the example's own map to dist/; its other imports are the example's npm: specifiers.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { repoRoot } from "../../../scripts/tickq-source.mjs";
import {
  exampleDir,
  outputHolding,
  processedUnder,
  startExample,
  type ExampleRunner,
  type RunningExample,
} from "../../helpers/examples.js";
import { denoSourcesConfig } from "../../helpers/deno-config.js";
import { deleteUnder, directRedis, redisUrl, uniquePrefix } from "../../helpers/redis.js";

// A machine that cannot run the `deno` package's binary opts out by name (TICKQ_SKIP_DENO=1, see
// .ci/require-tools.sh); otherwise a binary that does not run fails the run.
const describeDeno = describe.skipIf(process.env.TICKQ_SKIP_DENO === "1");

function useDenoExample(name: string, env: Record<string, string>, flags = ["--unstable-cron"]) {
  const redis = directRedis();
  const prefix = uniquePrefix(name);
  let service: RunningExample | undefined;
  const config = denoSourcesConfig();
  const deno: ExampleRunner = (_tsconfig, entry) => ({
    command: join(repoRoot, "node_modules", ".bin", "deno"),
    args: ["run", "--allow-net", "--allow-env", "--allow-read", ...flags, "--config", config.path, entry],
  });
  beforeAll(async () => {
    service = await startExample(
      "deno",
      "src/main.ts",
      { TICKQ_PREFIX: prefix, PORT: "0", TICKQ_SECRET: "deno-example-secret-0123", NO_COLOR: "1", ...env },
      deno,
    );
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    config.remove();
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });
  return { redis, prefix, service: () => service! };
}

const signup = (url: string, email: string) =>
  fetch(`${url}/signup`, {
    method: "POST",
    body: JSON.stringify({ email }),
    headers: { "content-type": "application/json" },
  });

describeDeno("examples/deno under Deno, Redis over TCP (npm:ioredis)", () => {
  const { redis, prefix, service } = useDenoExample("example-deno-tcp", { REDIS_URL: redisUrl() });

  it("runs the welcome email of a POST /signup", async () => {
    expect(service().output()).toContain("(Redis over TCP)");
    expect((await signup(service().url, "ada@example.com")).status).toBe(201);
    expect(await processedUnder(redis, prefix, 1)).toBe(1);
    const sent = "welcome email sent to ada@example.com";
    expect(await outputHolding(service(), sent)).toContain(sent);
  });

  it("serves tickq's routes behind the secret", async () => {
    expect((await fetch(`${service().url}/stats`)).status).toBe(401);
    const stats = await fetch(`${service().url}/stats`, {
      headers: { Authorization: "Bearer deno-example-secret-0123" },
    });
    expect(stats.status).toBe(200);
  });
});

describeDeno("examples/deno under Deno, Redis over HTTP (the REST adapter)", () => {
  const { redis, prefix, service } = useDenoExample("example-deno-rest", {
    UPSTASH_REDIS_REST_URL: inject("restUrl"),
    UPSTASH_REDIS_REST_TOKEN: inject("restToken"),
  });

  it("runs the welcome email of a POST /signup", async () => {
    expect(service().output()).toContain("(Redis over HTTP)");
    expect((await signup(service().url, "grace@example.com")).status).toBe(201);
    expect(await processedUnder(redis, prefix, 1)).toBe(1);
    const sent = "welcome email sent to grace@example.com";
    expect(await outputHolding(service(), sent)).toContain(sent);
  });
});

describeDeno("examples/deno without --unstable-cron", () => {
  it("refuses to start, naming the flag (Deno.cron is missing) and the way to tick without it", async () => {
    const config = denoSourcesConfig();
    const run = spawnSync(
      join(repoRoot, "node_modules", ".bin", "deno"),
      ["run", "--allow-net", "--allow-env", "--allow-read", "--config", config.path, "src/main.ts"],
      {
        cwd: exampleDir("deno"),
        env: {
          ...process.env,
          REDIS_URL: redisUrl(),
          TICKQ_SECRET: "deno-example-secret-0123",
          NO_COLOR: "1",
          PORT: "0",
        },
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    config.remove();
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(
      /Deno\.cron, which this Deno lacks: run with --unstable-cron .*denoCron: false and tickEveryMs/,
    );
  });
});

describeDeno("examples/deno under deno check", () => {
  it("type-checks with Deno's own types (Deno.serve, Deno.cron, the npm: imports), which tsx never checks", () => {
    const config = denoSourcesConfig();
    const run = spawnSync(
      join(repoRoot, "node_modules", ".bin", "deno"),
      ["check", "--config", config.path, "src/main.ts"],
      { cwd: exampleDir("deno"), env: { ...process.env, NO_COLOR: "1" }, encoding: "utf8", timeout: 120_000 },
    );
    config.remove();
    expect(run.status, run.stdout + run.stderr).toBe(0);
  }, 150_000);
});

describeDeno("serveDeno's options under Deno", () => {
  it("refuses a cron schedule passed as cron, naming denoCron (cron is createTickq's parser)", () => {
    const config = denoSourcesConfig();
    const code = 'import { serveDeno } from "tickq/deno"; serveDeno({ jobs: {}, cron: "*/5 * * * *" } as never);';
    const run = spawnSync(join(repoRoot, "node_modules", ".bin", "deno"), ["eval", "--config", config.path, code], {
      cwd: exampleDir("deno"),
      env: { ...process.env, NO_COLOR: "1" },
      encoding: "utf8",
      timeout: 60_000,
    });
    config.remove();
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(`serveDeno's Deno.cron schedule is denoCron (denoCron: "*/5 * * * *")`);
  }, 90_000);
});
