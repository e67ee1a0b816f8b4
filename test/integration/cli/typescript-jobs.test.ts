// `--jobs ./jobs.ts`: a TypeScript library keeps its jobs in a .ts module,
// which the Node the CLI runs on may not import (Node 20 cannot). The CLI
// loads it through the project's tsx instead of refusing it; a .ts module
// that does not exist still says so.
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { adapterCase, describeOverAdapters } from "../../helpers/adapters.js";
import { buildCli, type Cli, cliEnv } from "../../helpers/cli.js";
import { useHarness } from "../../helpers/harness.js";

const JOBS = "test/fixtures/cli-jobs-ts.ts";

describeOverAdapters([adapterCase("ioredis")], "tickq --jobs with a TypeScript module over $name", (a) => {
  const h = useHarness(a, "cli-ts-jobs");
  let cli: Cli;
  beforeAll(async () => {
    cli = await buildCli({});
  });
  afterAll(() => cli.dispose());
  const env = () => ({ ...cliEnv(a), TICKQ_TEST_REDIS_URL: inject("redisUrl"), TICKQ_TEST_PREFIX: h.prefix });

  it("enqueues and runs the jobs a .ts module declares", async () => {
    const enqueued = await cli.run(["enqueue", "greet", '["ts"]', "--jobs", JOBS, "--prefix", h.prefix], env());
    expect(enqueued.stderr).toBe("");
    expect(enqueued.code).toBe(0);
    const ticked = await cli.json<{ succeeded: number }>(["tick", "--jobs", JOBS, "--prefix", h.prefix], env());
    expect(ticked.body.succeeded).toBe(1);
    expect(await h.redis.lrange(`${h.prefix}test:ran`, 0, -1)).toEqual(["ts"]);
  });

  it("a .ts module that is not there is a usage error naming it", async () => {
    const missing = await cli.run(["tick", "--jobs", "test/fixtures/no-such-jobs.ts", "--prefix", h.prefix], env());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--jobs test\/fixtures\/no-such-jobs\.ts: cannot import it/);
    expect(missing.stderr).toMatch(/no file at \S+\/test\/fixtures\/no-such-jobs\.ts/);
  });

  it("a CommonJS module that requires tickq is told to set type module or name it .mts", async () => {
    const cjs = await cli.run(["tick", "--jobs", "test/fixtures/cli-jobs-commonjs.cts", "--prefix", h.prefix], env());
    expect(cjs.code).toBe(2);
    expect(cjs.stderr).toMatch(/tickq is ES modules only/);
    expect(cjs.stderr).toMatch(/set "type": "module" in package\.json or name it \.mts/);
  });
});
