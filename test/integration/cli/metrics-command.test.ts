// `tickq metrics` prints, as a table or --json, what metrics.query() reads
// for the last hours: runs, failures and percentiles per job name, waits and
// latency per queue; a bad --hours exits 2.
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import type { MetricsResult } from "../../../src/index.js";
import { describeOverAdapters } from "../../helpers/adapters.js";
import { buildCli, type Cli, cliConnections, cliEnv } from "../../helpers/cli.js";
import { useHarness } from "../../helpers/harness.js";

const JOBS = "test/fixtures/cli-jobs.mjs";

describeOverAdapters(cliConnections, "tickq metrics over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cli-metrics");
  let cli: Cli;
  beforeAll(async () => {
    cli = await buildCli({});
  });
  afterAll(() => cli.dispose());
  const env = () => ({ ...cliEnv(adapterCase), TICKQ_TEST_REDIS_URL: inject("redisUrl"), TICKQ_TEST_PREFIX: h.prefix });
  const run = (...args: string[]) => cli.run([...args, "--prefix", h.prefix], env());
  const json = <T>(...args: string[]) => cli.json<T>([...args, "--prefix", h.prefix], env());

  it("prints runs, failures and waits per job name and queue, as a table and as JSON", async () => {
    await run("enqueue", "hello", '["a"]', "--queue", "mail");
    await run("enqueue", "hello", '["b"]');
    await run("enqueue", "bad", "[1]", "--jobs", JOBS);
    expect((await json<{ succeeded: number }>("tick", "--jobs", JOBS)).body.succeeded).toBe(2);

    const { body } = await json<MetricsResult>("metrics", "--hours", "2");
    expect(body.untilMs - body.sinceMs).toBe(2 * 3600_000);
    expect(body.jobs.map((s) => [s.name, s.total.runs, s.total.failures])).toEqual([
      ["bad", 1, 1],
      ["hello", 2, 0],
    ]);
    expect(body.queues.map((q) => [q.queue, q.total.waits])).toEqual([
      ["default", 2],
      ["mail", 1],
    ]);

    const printed = await run("metrics");
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/^last 1 h /);
    expect(printed.stdout).toMatch(
      /\nJOB +RUNS +FAILED +P50 MS +P95 MS +P99 MS\nbad +1 +1 +[\d.]+ +[\d.]+ +[\d.]+\nhello +2 +0 /,
    );
    expect(printed.stdout).toMatch(/\nQUEUE +LATENCY MS +RAN +WAIT P50 MS .*\ndefault +0 +2 +[\d.]+/);

    const one = await json<MetricsResult>("metrics", "--name", "hello", "--queue", "mail");
    expect(one.body.jobs.map((s) => s.name)).toEqual(["hello"]);
    expect(one.body.queues.map((q) => q.queue)).toEqual(["mail"]);
  });

  it("exits 2 for hours that are no whole number", async () => {
    const bad = await run("metrics", "--hours", "two");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--hours must be a whole number/);
  });
});
