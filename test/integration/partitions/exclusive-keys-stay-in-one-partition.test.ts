// Under partitions, every check that must see all of a key's jobs runs in one
// partition: an ordered id's payloads merge into one run, a concurrency key
// never runs more than its limit, a unique key takes one job, a workflow
// run and the events it waits for meet, and a recurring schedule runs once
// per slot, from the one partition that holds it.
import { expect, it } from "vitest";
import type { JobContext } from "../../../src/index.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { MINUTE, recorder, setClock } from "../recurring/clock.js";

describeOverAdapters(adapterCases, "exclusive keys under partitions, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "part-keys");

  it("merges an ordered id's payloads into one run, whatever partition its id hashes to", async () => {
    const runs: { id: string; payloads: unknown[] }[] = [];
    const tq = h.make(
      {},
      {
        partitions: 3,
        ordered: { idx: { perform: async (id: string, payloads: unknown[]) => void runs.push({ id, payloads }) } },
      },
    );
    for (const id of ["a", "b", "c", "d", "e", "f"])
      await tq.enqueueOrderedBulk([1, 2, 3].map((v) => ({ name: "idx", id, payload: v, score: v })));
    expect((await tq.stats()).ordered).toEqual({ idx: { waiting: 6, running: 0, payloads: 18, dead: 0 } });
    expect(await tq.tick({ budgetMs: 5_000 })).toMatchObject({ succeeded: 6 });
    expect(runs.map((r) => r.id).sort()).toEqual(["a", "b", "c", "d", "e", "f"]);
    for (const run of runs) expect(run.payloads).toEqual([1, 2, 3]);
  });

  it("holds a concurrency limit and a unique key across partitions", async () => {
    let running = 0;
    let most = 0;
    const tq = h.make(
      {
        sync: {
          perform: async () => {
            most = Math.max(most, ++running);
            await new Promise((resolve) => setTimeout(resolve, 20));
            running--;
          },
          concurrency: { key: () => "one-account", limit: 1 },
        },
        mail: { perform: () => {} },
      },
      { partitions: 3 },
    );
    await tq.enqueueBulk(Array.from({ length: 6 }, () => ({ name: "sync" as const, args: [] })));
    const first = await tq.enqueue("mail", ["a@b.c"], { unique: "until-executed" });
    const again = await tq.enqueue("mail", ["a@b.c"], { unique: "until-executed" });
    expect(again).toBe(first);
    for (let i = 0; i < 10 && (await tq.stats()).processed < 7; i++) await tq.tick({ budgetMs: 3_000, concurrency: 6 });
    expect(most).toBe(1);
    expect((await tq.stats()).processed).toBe(7);
  });

  it("meets a workflow run and its event, and lists runs with one cursor", async () => {
    const tq = h.make(
      {},
      {
        partitions: 3,
        workflows: {
          onboard: {
            run: async (input: { user: string }, step) =>
              step.waitForEvent("activated", { event: "user.activated", match: input.user, timeout: "1h" }),
          },
        },
      },
    );
    const ids = await Promise.all(["u1", "u2", "u3"].map((user) => tq.workflows.start("onboard", { user })));
    // startBulk over partitions: each run in the partition of its id, the ids in order.
    const bulk = await tq.workflows.startBulk(
      ["u4", "u5", "u6", "u7"].map((user) => ({ name: "onboard" as const, input: { user }, id: `bulk-${user}` })),
    );
    expect(bulk).toEqual(["bulk-u4", "bulk-u5", "bulk-u6", "bulk-u7"]);
    ids.push(...bulk);
    await tq.tick({ budgetMs: 2_000 });
    for (const id of ids) expect((await tq.workflows.get(id))?.status).toBe("waiting");
    expect(await tq.workflows.sendEvent("user.activated", { match: "u3", data: { ok: true } })).toBe(1);
    await tq.tick({ budgetMs: 2_000 });
    expect(await tq.workflows.result(ids[2]!, { timeoutMs: 1_000 })).toEqual({ ok: true });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await tq.workflows.list({ limit: 1, cursor });
      seen.push(...page.runs.map((r) => r.id));
      cursor = page.cursor;
    } while (cursor !== undefined);
    expect(seen.sort()).toEqual([...ids].sort());
  });

  it("runs each recurring schedule once per slot, from one partition", async () => {
    const rec = recorder();
    const START = Date.UTC(2030, 0, 1, 12, 0, 0);
    const tq = h.make(
      { minute: rec.job },
      {
        partitions: 3,
        schedules: {
          a: { cron: "* * * * *", job: "minute" },
          b: { cron: "* * * * *", job: "minute" },
          c: { cron: "* * * * *", job: "minute" },
        },
      },
    );
    for (let second = 15; second <= 5 * 60 + 15; second += 30) {
      await setClock(h.redis, [tq], START + second * 1_000);
      await Promise.all([tq.tick({ budgetMs: 2_000 }), tq.tick({ budgetMs: 2_000 })]);
    }
    for (const name of ["a", "b", "c"]) expect(rec.slots(name)).toEqual([1, 2, 3, 4, 5].map((m) => START + m * MINUTE));
    expect([...rec.runs.values()].every((n) => n === 1)).toBe(true);
    expect((await tq.schedules()).map((s) => [s.name, s.declared])).toEqual([
      ["a", true],
      ["b", true],
      ["c", true],
    ]);
    const found = await tq.jobs.find(`a:${START + MINUTE}`);
    expect(found === null || found.name === "minute").toBe(true);
  });

  it("sums stats, history and metrics over partitions", async () => {
    const seen: JobContext[] = [];
    const tq = h.make({ noop: (_: [], ctx: JobContext) => void seen.push(ctx) }, { partitions: 3 });
    await tq.enqueueBulk(Array.from({ length: 9 }, () => ({ name: "noop" as const, args: [] })));
    await tq.tick({ budgetMs: 5_000 });
    expect(seen).toHaveLength(9);
    const [today] = (await tq.stats.history(1)).slice(-1);
    expect(today?.processed).toBe(9);
    const metrics = await tq.metrics.query({ sinceMs: Date.now() - 5 * MINUTE });
    expect(metrics.jobs.find((s) => s.name === "noop")?.total.runs).toBe(9);
    const text = await tq.metrics.prometheus();
    expect(text.match(/^# TYPE tickq_processed_total counter$/gm)).toHaveLength(1);
    expect(text).toContain('tickq_processed_total{partition="2"}');
  });
});
