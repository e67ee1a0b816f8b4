// `tickq enqueue NAME` without --jobs writes a job it does not know: the tick that runs it retries it as
// its definition says. Before, the CLI wrote `retry: true`, so a job defined with `retry: false` was
// retried (its second run showed as "attempt 2" in tickq dev and in the failure log line).
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { adapterCase, describeOverAdapters } from "../../helpers/adapters.js";
import { buildCli, type Cli } from "../../helpers/cli.js";
import { useHarness } from "../../helpers/harness.js";

const JOBS = "test/fixtures/cli-jobs.mjs"; // "bad": retry: false, always fails

describeOverAdapters([adapterCase("ioredis")], "tickq enqueue without --jobs over $name", (a) => {
  const h = useHarness(a, "cli-enqueue-retry");
  let cli: Cli;
  beforeAll(async () => {
    cli = await buildCli({ REDIS_URL: inject("redisUrl") });
  });
  afterAll(() => cli.dispose());
  const run = (...args: string[]) =>
    cli.run([...args, "--prefix", h.prefix], { TICKQ_TEST_REDIS_URL: inject("redisUrl"), TICKQ_TEST_PREFIX: h.prefix });

  it("a job defined with retry: false goes dead at its first failure, never retried", async () => {
    const enqueued = await run("enqueue", "bad", "[]", "--jid", "no-retry-1");
    expect(enqueued).toMatchObject({ code: 0, stderr: "" });
    expect((await run("jobs", "show", "no-retry-1")).stdout).toMatch(/^retry +its definition's$/m);
    const tick = await run("tick", "--jobs", JOBS);
    expect(tick.stdout).toMatch(/1 failed \(0 to retry, 1 dead\)/);
    expect(tick.stderr).toMatch(
      /job bad no-retry-1 failed \(attempt 1\): Error: always fails; out of retries, moved to the dead set/,
    );
    expect(await h.redis.zcard(`${h.prefix}retry`)).toBe(0);
    expect(await h.redis.zcard(`${h.prefix}dead`)).toBe(1);
  });

  it("--retry still says it for the job", async () => {
    await run("enqueue", "bad", "[]", "--jid", "retry-once", "--retry", "1");
    const tick = await run("tick", "--jobs", JOBS);
    expect(tick.stdout).toMatch(/1 failed \(1 to retry, 0 dead\)/);
  });
});
