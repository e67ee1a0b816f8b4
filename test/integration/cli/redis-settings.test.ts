// Every command finds Redis the same way (docs/operate/cli.md, "Which Redis"): REDIS_URL, else
// UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN; the server commands (dev, serve, redis-http)
// else a local Redis. A REDIS_URL that does not answer, of another scheme, or half of Upstash's pair
// gets the same message and exit code from each, naming what to set, and no password is printed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../src/platforms/node/find-redis.js";
import { buildCli, type Cli } from "../../helpers/cli.js";

// Each case spawns a CLI process per command: a fresh Node each, 1 to 2 s apiece on a loaded machine. Given to
// the describe: vi.setConfig reaches only the first file a forked worker runs (the pool does not isolate files).
const SPAWNS_MS = 120_000;

const JOBS = "test/fixtures/cli-jobs.mjs";
const PASSWORD = "hunter2-never-printed";

/** One command of each kind: reads through the jobs API, and the three that run a server. */
const commands = (port: number) => [
  ["stats"],
  ["jobs", "list", "dead"],
  ["serve", "--jobs", JOBS, "--port", String(port)],
  ["dev", "--jobs", JOBS, "--port", String(port)],
  ["redis-http", "--port", String(port)],
];

describe("the Redis every tickq command takes", { timeout: SPAWNS_MS }, () => {
  let cli: Cli;
  let port: number;
  beforeAll(async () => {
    cli = await buildCli({});
    port = await freePort();
  });
  afterAll(() => cli.dispose());

  it("a REDIS_URL that does not answer: exit 1 from every command, naming it with its password masked", async () => {
    const dead = await freePort(); // nothing listens there
    for (const command of commands(port)) {
      const result = await cli.run(command, { REDIS_URL: `redis://app:${PASSWORD}@127.0.0.1:${dead}` });
      expect({ command, code: result.code }).toEqual({ command, code: 1 });
      expect(result.stderr).toMatch(
        new RegExp(
          `^tickq: Redis at redis://app:\\*\\*\\*@127\\.0\\.0\\.1:${dead} is unreachable \\(.+\\): is it running\\? Check REDIS_URL`,
        ),
      );
      expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    }
  });

  it("a REDIS_URL without its scheme never prints its password", async () => {
    const dead = await freePort();
    for (const command of commands(port)) {
      const result = await cli.run(command, { REDIS_URL: `app:${PASSWORD}@127.0.0.1:${dead}` });
      expect({ command, code: result.code }).toEqual({ command, code: 1 });
      expect(result.stderr).toMatch(/is unreachable .*Check REDIS_URL/);
      expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    }
  });

  it("a REDIS_URL of another scheme: exit 2 from every command, naming the fix", async () => {
    for (const command of commands(port)) {
      const result = await cli.run(command, { REDIS_URL: "https://example.upstash.io" });
      expect({ command, code: result.code }).toEqual({ command, code: 2 });
      expect(result.stderr).toMatch(/^tickq: REDIS_URL must start with redis:\/\/ .*UPSTASH_REDIS_REST_URL/);
    }
  });

  it("half of Upstash's pair: exit 2 naming the other half; the server commands refuse the pair, naming REDIS_URL", async () => {
    const half = await cli.run(["stats"], { UPSTASH_REDIS_REST_URL: "http://127.0.0.1:1" });
    expect(half.code).toBe(2);
    expect(half.stderr).toMatch(/^tickq: UPSTASH_REDIS_REST_URL is set without UPSTASH_REDIS_REST_TOKEN: set both/);
    for (const command of [
      ["serve", "--jobs", JOBS, "--port", String(port)],
      ["dev", "--jobs", JOBS, "--port", String(port)],
    ]) {
      const result = await cli.run(command, {
        UPSTASH_REDIS_REST_URL: "http://127.0.0.1:1",
        UPSTASH_REDIS_REST_TOKEN: PASSWORD,
      });
      expect({ command, code: result.code }).toEqual({ command, code: 2 });
      expect(result.stderr).toMatch(/runs a server over TCP and cannot use UPSTASH_REDIS_REST_URL: set REDIS_URL/);
      expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    }
  });
});
