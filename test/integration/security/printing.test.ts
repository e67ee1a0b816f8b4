// A password in REDIS_URL is never printed: `tickq serve`, `tickq
// redis-http`, `npm start` and `npm run redis-http` show the URL with its
// password masked, against a redis-server of the test's own that needs one.
import { spawn } from "node:child_process";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../src/platforms/node/find-redis.js";
import { buildCli, type Cli } from "../../helpers/cli.js";
import { startPrivateRedis, type PrivateRedis } from "../../helpers/private-redis.js";

const PASSWORD = "RedisPassword0ForPrinting";
const SECRET = "printing-secret-0123456789";

/** Runs a command until its output shows `ready`, then stops it; everything it printed. */
async function printed(command: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<string> {
  const child = spawn(command, args, { env: { PATH: process.env.PATH ?? "", ...env } });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk));
  child.stderr.on("data", (chunk: Buffer) => (out += chunk));
  try {
    for (let i = 0; i < 300 && !ready.test(out) && child.exitCode === null; i++)
      await new Promise((r) => setTimeout(r, 50));
    return out;
  } finally {
    child.kill("SIGTERM");
  }
}

describe("REDIS_URL with a password, printed", () => {
  let redis: PrivateRedis;
  let url: string;
  let cli: Cli;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    const client = new Redis(redis.url);
    await client.config("SET", "requirepass", PASSWORD);
    client.disconnect();
    url = redis.url.replace("redis://", `redis://default:${PASSWORD}@`);
    cli = await buildCli({});
  }, 30_000);
  afterAll(async () => {
    cli?.dispose();
    await redis?.stop();
  });

  const check = (out: string, ready: RegExp) => {
    expect(out).toMatch(ready);
    expect(out).toContain("redis://default:***@127.0.0.1");
    expect(out).not.toContain(PASSWORD);
  };

  it("is masked, and the credentials named as the cause, when the password is wrong", async () => {
    const wrong = url.replace(PASSWORD, "not-the-password");
    const refused = await cli.run(["stats"], { REDIS_URL: wrong });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refused the credentials .*check the user and password in REDIS_URL/);
    expect(refused.stderr).not.toContain("not-the-password");
    expect(refused.stderr).not.toMatch(/is it running/);
  });

  it("says a single Redis answered no cluster slots when --cluster names it", async () => {
    const single = await cli.run(["--cluster", "stats"], { REDIS_URL: url });
    expect(single.code).not.toBe(0);
    expect(single.stderr).toMatch(/answered no cluster slots .*leave out --cluster/);
    expect(single.stderr).not.toContain(PASSWORD);
  });

  it("is masked by tickq serve and tickq redis-http", async () => {
    const serve = await printed(
      process.execPath,
      [cli.path, "serve", "--jobs", "test/fixtures/cli-jobs.mjs", "--port", "0"],
      { REDIS_URL: url, TICKQ_SECRET: SECRET, TICKQ_TEST_REDIS_URL: url },
      /listening on/,
    );
    check(serve, /listening on/);
    const http = await printed(
      process.execPath,
      [cli.path, "redis-http", "--port", "0", "--token", SECRET],
      { REDIS_URL: url },
      /TOKEN=/,
    );
    check(http, /UPSTASH_REDIS_REST_URL=/);
  }, 30_000);

  it("is masked by npm start and npm run redis-http", async () => {
    const tsx = "node_modules/.bin/tsx";
    const start = await printed(
      tsx,
      ["src/platforms/node/start.ts"],
      { REDIS_URL: url, TICKQ_SECRET: SECRET, PORT: String(await freePort()) },
      /listening on/,
    );
    check(start, /listening on/);
    const http = await printed(
      tsx,
      ["tools/upstash-local/main.ts", "--port", "0", "--token", SECRET],
      { REDIS_URL: url },
      /TOKEN=/,
    );
    check(http, /UPSTASH_REDIS_REST_URL=/);
  }, 30_000);
});
