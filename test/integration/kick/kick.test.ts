// Kick on enqueue (core): a tick runs right after the enqueue, in the
// scope's waitUntil or in-process; at most kick.max at once, and a kick
// refused meanwhile makes a holder tick again, so no job waits for a cron.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describe.each(adapterCases)("kick on enqueue over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "kick");

  const until = async (done: () => boolean, ms = 3_000) => {
    for (const t = Date.now(); !done() && Date.now() - t < ms; ) await sleep(5);
    return done();
  };

  it("starts the job in the tick it kicks, kept in the scope's waitUntil, with no other tick", async () => {
    const started: number[] = [];
    const kept: Promise<unknown>[] = [];
    const tq = h.make({ mark: () => void started.push(Date.now()) }).scope({ waitUntil: (p) => void kept.push(p) });
    await tq.enqueue("mark", [], { kick: true });
    expect(kept).toHaveLength(1);
    // What the kick promised is done once the kept promise settles: no timing bound, the kick itself ran it.
    await kept[0];
    expect(started).toHaveLength(1);
    expect(await h.redis.zcard(`${h.prefix}kicks`)).toBe(0); // the slot is released
  });

  it("does not kick without { kick: true }, nor for a delayed job; a scope may kick by default", async () => {
    const ran: string[] = [];
    const kept: Promise<unknown>[] = [];
    const base = h.make({ job: ([id]: [string]) => void ran.push(id) });
    const tq = base.scope({ waitUntil: (p) => void kept.push(p) });
    await tq.enqueue("job", ["plain"]);
    await tq.enqueue("job", ["later"], { kick: true, delayMs: 60_000 });
    expect(kept).toHaveLength(0);
    const kicking = base.scope({ waitUntil: (p) => void kept.push(p), kick: true });
    // opted out first: a kick sent before it could drain the queue before it lands
    await kicking.enqueue("job", ["opted-out"], { kick: false });
    expect(kept).toHaveLength(0);
    await kicking.enqueueBulk([{ name: "job", args: ["bulk"] }]);
    expect(kept).toHaveLength(1);
    await Promise.all(kept);
    expect(ran).toEqual(["plain", "opted-out", "bulk"]);
  });

  it("caps kicked ticks at kick.max; a refused kick is picked up by a holder, so every job starts", async () => {
    const running = { now: 0, max: 0 };
    const ran: number[] = [];
    const tq = h.make(
      {
        work: async ([i]: [number]) => {
          running.now++;
          running.max = Math.max(running.max, running.now);
          await sleep(30);
          running.now--;
          ran.push(i);
        },
      },
      { kick: { max: 1, tick: { concurrency: 1, budgetMs: 5_000 } } },
    );
    const kept: Promise<unknown>[] = [];
    const scoped = tq.scope({ waitUntil: (p) => void kept.push(p) });
    for (let i = 0; i < 6; i++) {
      await scoped.enqueue("work", [i], { kick: true });
      await sleep(10);
    }
    await Promise.all(kept);
    expect(await until(() => ran.length === 6)).toBe(true);
    expect(running.max).toBe(1); // one kicked tick, concurrency 1
    expect(await h.redis.zcard(`${h.prefix}kicks`)).toBe(0);
  });

  it("runs in-process when the scope has no waitUntil (Node)", async () => {
    const ran: string[] = [];
    const tq = h.make({ job: ([id]: [string]) => void ran.push(id) });
    await tq.enqueue("job", ["node"], { kick: true });
    expect(await until(() => ran.length === 1)).toBe(true);
    // the kick ends by itself: its slot is released
    for (let i = 0; i < 200 && (await h.redis.exists(`${h.prefix}kicks`)) === 1; i++) await sleep(10);
    expect(await h.redis.exists(`${h.prefix}kicks`)).toBe(0);
  });

  it("a kick that fails is logged and never fails the enqueue", async () => {
    const tq = h.make({ job: () => {} }, { kick: { tick: { batch: -1 } } });
    const kept: Promise<unknown>[] = [];
    await expect(
      tq.scope({ waitUntil: (p) => void kept.push(p) }).enqueue("job", [], { kick: true }),
    ).resolves.toBeTypeOf("string");
    await Promise.all(kept);
    expect(h.logged.join("\n")).toMatch(/kicked tick failed.*batch/);
  });
});
