// The jobs API against ticks running at the same moment: a job is never in
// two places or none, never both deleted and run, never run twice.
import { describe, expect, it } from "vitest";
import { TickqError } from "../../../src/errors.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";
import { whereJobs } from "../../helpers/where.js";

describe.each(adapterCases)("the jobs API racing ticks over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "race");

  it("delete racing a tick: each job is deleted or run, once, and is never in two places", async () => {
    const ran: string[] = [];
    const tq = h.make({
      work: async (_args: [number], ctx) => {
        ran.push(ctx.jid);
        await sleep(3);
      },
    });
    const jids = await tq.enqueueBulk(Array.from({ length: 400 }, (_, i) => ({ name: "work" as const, args: [i] })));
    const deleted = new Set<string>();
    const refused = new Set<string>();
    const started = new Set<string>();
    let checks = 0;
    const check = async () => {
      const settledBefore = new Set(deleted);
      const ranBefore = new Set(ran);
      const where = await whereJobs(h.redis, h.prefix);
      for (const jid of jids) {
        const places = where.get(jid) ?? [];
        expect(places.length, `${jid} in ${places.join(", ")}`).toBeLessThanOrEqual(1);
        if (settledBefore.has(jid)) expect(places, `${jid} deleted`).toEqual([]);
        if (!ranBefore.has(jid) && !started.has(jid)) expect(places, `${jid} neither ran nor deleted`).toHaveLength(1);
      }
      checks++;
    };
    const ticking = (async () => {
      for (let i = 0; i < 20 && ran.length + deleted.size < jids.length; i++)
        await tq.tick({ batch: 10, concurrency: 4 });
    })();
    const deleting = (async () => {
      // every other job, alternately from the head of the queue (the ones a tick is about to fetch) and from its tail
      const order = jids
        .filter((_, i) => i % 2 === 0)
        .map((_, k, even) => (k % 2 === 0 ? even[k / 2]! : even[even.length - 1 - (k - 1) / 2]!));
      for (let i = 0; i < order.length; i++) {
        const jid = order[i]!;
        started.add(jid);
        try {
          await tq.jobs.delete(jid);
          deleted.add(jid);
        } catch (error) {
          if (!(error instanceof TickqError) || (error.code !== "NOT_FOUND" && error.code !== "CONFLICT")) throw error;
          refused.add(jid);
        }
        if (i % 10 === 0) await check();
      }
    })();
    await Promise.all([ticking, deleting]);
    // Drain what is left. One tick of 100 was not always enough: when deletes lag the ticks (a loaded
    // machine), the ticks run the head's even jobs too, and more than 100 odd ones are left.
    for (let i = 0; i < 10 && (await tq.stats()).queues.default! > 0; i++) await tq.tick({ batch: 100 });
    await check();
    expect(checks).toBeGreaterThan(5);
    expect(deleted.size).toBeGreaterThan(0);
    expect(new Set(ran).size).toBe(ran.length); // none ran twice
    for (const jid of deleted) expect(ran).not.toContain(jid);
    for (const jid of jids) expect(deleted.has(jid) || ran.includes(jid), jid).toBe(true);
    for (const jid of refused) expect(ran).toContain(jid);
    expect((await whereJobs(h.redis, h.prefix)).size).toBe(0);
  });

  it("retry of dead jobs while ticks run: each retried job runs once more, none is lost or doubled", async () => {
    let phase = "fail";
    const runs = new Map<string, number>();
    const tq = h.make({
      job: {
        retry: false,
        perform: (_args: [], ctx) => {
          runs.set(ctx.jid, (runs.get(ctx.jid) ?? 0) + 1);
          if (phase === "fail") throw new Error("first run fails");
        },
      },
    });
    const jids = await tq.enqueueBulk(Array.from({ length: 200 }, () => ({ name: "job" as const, args: [] })));
    await tq.tick({ batch: 200, concurrency: 50 });
    expect(await tq.stats()).toMatchObject({ dead: 200 });
    phase = "pass";
    const ticking = (async () => {
      for (let i = 0; i < 30; i++) {
        await tq.tick({ batch: 5, concurrency: 2 });
        await sleep(2);
      }
    })();
    const retrying = (async () => {
      for (let i = 0; i < 100; i++) await tq.jobs.retry(jids[i]!);
      expect(await tq.jobs.retryAll("dead")).toBe(100);
    })();
    await Promise.all([ticking, retrying]);
    await tq.tick({ batch: 200 });
    for (const jid of jids) expect(runs.get(jid), jid).toBe(2);
    expect((await whereJobs(h.redis, h.prefix)).size).toBe(0);
    expect(await tq.stats()).toMatchObject({ dead: 0, retry: 0, queues: { default: 0 } });
  });

  it("a paused queue's jobs are untouched by 5 ticks, and run once it is resumed", async () => {
    const ran: string[] = [];
    const tq = h.make({ work: (_args: unknown[], ctx) => void ran.push(ctx.queue) }, { queues: ["slow", "default"] });
    await tq.queues.pause("slow");
    await tq.enqueueBulk([
      ...Array.from({ length: 10 }, () => ({ name: "work" as const, args: [], queue: "slow" })),
      ...Array.from({ length: 10 }, () => ({ name: "work" as const, args: [], queue: "default" })),
    ]);
    await tq.enqueue("work", [], { queue: "slow", delayMs: 1 });
    await sleep(5);
    const before = await h.redis.lrange(`${h.prefix}queue:slow`, 0, -1);
    for (let i = 0; i < 5; i++) await tq.tick({ batch: 3 });
    const after = await h.redis.lrange(`${h.prefix}queue:slow`, 0, -1);
    expect(after.slice(1)).toEqual(before); // untouched; the due scheduled job joined its tail
    expect(after).toHaveLength(11);
    expect(ran).toEqual(Array(10).fill("default"));
    expect(await tq.queues.list()).toEqual([
      { name: "default", size: 0, paused: false, lastServedAt: expect.any(Number), latencyMs: 0 },
      { name: "slow", size: 11, paused: true, lastServedAt: expect.any(Number), latencyMs: expect.any(Number) },
    ]);
    expect((await tq.stats()).paused).toEqual(["slow"]);
    await tq.queues.resume("slow");
    await tq.tick();
    expect(ran.filter((q) => q === "slow")).toHaveLength(11);
    await expect(tq.queues.pause("bad name")).rejects.toMatchObject({ code: "BAD_ARGS" });
  });
});
