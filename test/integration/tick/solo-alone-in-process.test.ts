// A suspect (a job a dead tick left behind) runs alone in its process, not
// only in its tick: a kill takes every tick of the process, so a job of
// another tick running beside it would get an innocent suspect counted as a
// solo death. Two ticks of one process: one busy with slow jobs, one that
// fetches a suspect; no job of either runs while the suspect runs. And the
// record of a large suspect names it by its SHA-1, not its text.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

interface Run {
  what: string;
  from: number;
  to: number;
}

describe.each(adapterCases)("a solo run over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "solo-process");

  it("waits until no job of its process runs, and no job of the process starts while it runs", {
    timeout: 30_000,
  }, async () => {
    const runs: Run[] = [];
    const timed = async (what: string, ms: number) => {
      const from = performance.now();
      await sleep(ms);
      runs.push({ what, from, to: performance.now() });
    };
    const busy = h.make(
      { slow: { perform: async ([n]: [number]) => timed(`slow ${n}`, 300), queue: "busy" } },
      { queues: ["busy"] },
    );
    const other = h.make(
      { suspect: { perform: async () => timed("suspect", 200), queue: "other" } },
      { queues: ["other"] },
    );
    await busy.enqueueBulk(Array.from({ length: 8 }, (_, n) => ({ name: "slow" as const, args: [n] as [number] })));
    await other.enqueue("suspect", []);
    // A dead tick left it behind: resurrect.lua marks it so.
    const [text] = await h.redis.lrange(`${h.prefix}queue:other`, 0, -1);
    await h.redis.hset(`${h.prefix}suspects`, text!, 1);

    const busyTick = busy.tick({ batch: 2, concurrency: 2, budgetMs: 10_000 });
    await sleep(100); // the busy tick's first jobs run
    const [busyReport, otherReport] = await Promise.all([busyTick, other.tick({ budgetMs: 10_000 })]);

    expect(otherReport.succeeded).toBe(1);
    expect(busyReport.succeeded + busyReport.requeued).toBeGreaterThanOrEqual(8);
    const alone = runs.find((r) => r.what === "suspect")!;
    expect(alone).toBeDefined();
    const beside = runs.filter((r) => r !== alone && r.from < alone.to && r.to > alone.from);
    expect(beside.map((r) => r.what)).toEqual([]);
    // It did not wait for the busy tick to end: the slow jobs left after it ran after it.
    expect(runs.some((r) => r.from >= alone.to)).toBe(true);
    expect(await h.redis.hlen(`${h.prefix}solo`)).toBe(0);
  });

  it("a handler its tick gave up on does not stall the process: a later suspect and the jobs behind it run", {
    timeout: 30_000,
  }, async () => {
    // A handler that ignores its signal and never settles, in a tick that ends.
    const hung = h.make({ hang: { perform: () => new Promise<void>(() => {}), queue: "hung" } }, { queues: ["hung"] });
    await hung.enqueue("hang", []);
    const hungReport = await hung.tick({ budgetMs: 300, leaseMs: 30_000, graceMs: 100 });
    expect(hungReport.succeeded).toBe(0);

    const ran: string[] = [];
    const tq = h.make({ work: async ([what]: [string]) => void ran.push(what) }, { queues: ["default"] });
    await tq.enqueue("work", ["suspect"]);
    const [text] = await h.redis.lrange(`${h.prefix}queue:default`, 0, -1);
    await h.redis.hset(`${h.prefix}suspects`, text!, 1);
    await tq.enqueue("work", ["behind"]);
    const report = await tq.tick({ budgetMs: 5_000 });
    expect(report.succeeded).toBe(2);
    expect(ran).toEqual(["suspect", "behind"]);
  });

  it("suspects in a row cost one call each, and one more to clear the last record", async () => {
    const tq = h.make({ work: async (_args: [number]) => {} });
    const suspects = async (n: number) => {
      await tq.enqueueBulk(Array.from({ length: n }, (_, k) => ({ name: "work" as const, args: [k] as [number] })));
      for (const text of await h.redis.lrange(`${h.prefix}queue:default`, 0, -1))
        await h.redis.hset(`${h.prefix}suspects`, text, 1);
    };
    await suspects(1);
    await tq.tick(); // its scripts are loaded: no NOSCRIPT round trip below
    await suspects(3);
    const report = await tq.tick();
    expect(report.succeeded).toBe(3);
    // begin, a record for each, the clearing step, finish
    expect(report.roundTrips).toBe(1 + 3 + 1 + 1);
    expect(await h.redis.hlen(`${h.prefix}solo`)).toBe(0);
  });

  it("records a suspect over 1 KiB by its SHA-1, as acks name it, not by its text", async () => {
    let recorded: string[] = [];
    const tq = h.make({ big: async (_args: [string]) => void (recorded = await h.redis.hvals(`${h.prefix}solo`)) });
    await tq.enqueue("big", ["x".repeat(4_000)]);
    const [text] = await h.redis.lrange(`${h.prefix}queue:default`, 0, -1);
    await h.redis.hset(`${h.prefix}suspects`, text!, 1);
    expect(await tq.tick()).toMatchObject({ succeeded: 1 });
    expect(recorded).toEqual([`p#${createHash("sha1").update(text!).digest("hex")}`]);
  });
});
