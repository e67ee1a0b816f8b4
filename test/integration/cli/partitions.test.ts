// The CLI over partitions: `tickq partitions migrate` moves a one-partition
// layout into N, and every command with --partitions (or TICKQ_PARTITIONS)
// reads the N partitions as one.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect } from "vitest";
import { it } from "vitest";
import { describeOverAdapters } from "../../helpers/adapters.js";
import { buildCli, type Cli, cliConnections, cliEnv } from "../../helpers/cli.js";
import { useHarness } from "../../helpers/harness.js";

const LONG_KEY_JOBS = fileURLToPath(new URL("../../fixtures/long-key-jobs.mjs", import.meta.url));

describeOverAdapters(cliConnections, "tickq partitions over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cli-part");
  let cli: Cli;
  beforeAll(async () => {
    cli = await buildCli({});
  });
  afterAll(() => cli.dispose());

  it("migrates with `partitions migrate`, then stats and jobs list read all partitions", async () => {
    const old = h.make({ boom: { retry: 0, perform: () => Promise.reject(new Error("boom")) } });
    await old.enqueueBulk(Array.from({ length: 6 }, (_, n) => ({ name: "boom" as const, args: [n] })));
    await old.tick({ budgetMs: 2_000 });
    await old.enqueue("boom", [9]);
    const env = cliEnv(adapterCase);
    const usage = await cli.run(["partitions", "migrate", "--prefix", h.prefix], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/needs --partitions M/);
    const migrated = await cli.json<{ moved: Record<string, number> }>(
      ["partitions", "migrate", "--partitions", "3", "--prefix", h.prefix],
      env,
    );
    expect(migrated).toEqual({
      code: 0,
      body: {
        partitions: 3,
        fromPartitions: 1,
        moved: { dead: 6, retry: 0, scheduled: 0, queued: 1, orderedDead: 0 },
        stayed: 0,
        left: [],
      },
    });
    const stats = await cli.json<{ dead: number; scheduled: number }>(["stats", "--prefix", h.prefix], {
      ...env,
      TICKQ_PARTITIONS: "3",
    });
    expect(stats.body).toMatchObject({ dead: 6, scheduled: 1 });
    const dead = await cli.json<{ jobs: unknown[] }>(
      ["jobs", "list", "dead", "--partitions", "3", "--prefix", h.prefix],
      env,
    );
    expect(dead.code).toBe(0);
    expect(JSON.stringify(dead.body)).toContain('"state":"dead"');
    const wrong = await cli.run(["stats", "--partitions", "2", "--prefix", h.prefix], env);
    expect(wrong.stderr).toMatch(/laid out in 3 partitions/);
  });
  it("moves 3 partitions to 5 with `partitions migrate --partitions 5`, the count to move from read from the stored one", async () => {
    const three = h.make({ noop: () => {} }, { partitions: 3 });
    await three.enqueueBulk(Array.from({ length: 9 }, (_, n) => ({ name: "noop" as const, args: [n] })));
    await three.enqueue("noop", ["later"], { delayMs: 60_000 });
    const env = cliEnv(adapterCase);
    const wrongFrom = await cli.run(
      ["partitions", "migrate", "--partitions", "5", "--from-partitions", "4", "--prefix", h.prefix],
      env,
    );
    expect(wrongFrom.code).not.toBe(0);
    expect(wrongFrom.stderr).toMatch(/laid out in 3 partitions.*--from-partitions 3/);
    const text = await cli.run(["partitions", "migrate", "--partitions", "5", "--prefix", h.prefix], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /moved 9 queued, 1 scheduled, 0 retry, 0 dead from 3 into 5 partitions; 0 stayed in place/,
    );
    const stats = await cli.json<{ scheduled: number }>(["stats", "--partitions", "5", "--prefix", h.prefix], env);
    expect(stats.body.scheduled).toBe(10);
    const old = await cli.run(["stats", "--partitions", "3", "--prefix", h.prefix], env);
    expect(old.stderr).toMatch(/partitions: 3, but .* laid out in 5 partitions/);
  });

  it("routes a flow job by its definition with `--jobs`, and refuses one it cannot route without", async () => {
    const jobs = { keyed: { concurrency: { key: ([key]: [string]) => key, limit: 1 }, perform: () => {} } };
    const jid = await h.make(jobs).enqueue("keyed", ["k".repeat(300)]);
    const env = cliEnv(adapterCase);
    const refused = await cli.run(["partitions", "migrate", "--partitions", "3", "--prefix", h.prefix], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(jid);
    expect(refused.stderr).toMatch(/--jobs/);
    const moved = await cli.run(
      ["partitions", "migrate", "--partitions", "3", "--prefix", h.prefix, "--jobs", LONG_KEY_JOBS],
      env,
    );
    expect(moved.stdout).toMatch(/moved 1 queued/);
    expect((await h.make(jobs, { partitions: 3 }).jobs.find(jid))?.state).toBe("scheduled");
  });

  it("refuses to strand a waiting ordered id, and moves the rest with `--leave`, printing what stays", async () => {
    // The one-partition layout under a prefix of its own (as {tq}: on a cluster): on one Redis under
    // the same prefix `--leave` is refused, as the new deployment would not start while the id waits there.
    const from = `${h.prefix}old:`;
    const old = h.make({ step: () => {} }, { prefix: from, ordered: { feed: { perform: () => {} } } });
    await old.enqueueOrdered("feed", { id: "a", payload: 1 });
    await old.enqueue("step", []);
    const env = cliEnv(adapterCase);
    const migrate = ["partitions", "migrate", "--partitions", "3", "--prefix", h.prefix, "--from", from];
    const refused = await cli.run(migrate, env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/still holds 1 ordered ids.*--leave/s);
    expect((await old.stats()).queues).toEqual({ default: 1 });
    const moved = await cli.run([...migrate, "--leave"], env);
    expect(moved.code).toBe(0);
    expect(moved.stdout).toMatch(/moved 1 queued/);
    expect(moved.stdout).toMatch(/left in the old layout: 1 ordered ids/);
  });
});
