// tq.ticks(): the registry's ticks with their leases, read by ticks.lua
// (read-only: run twice, it changes nothing and answers alike but for the
// clock — Redis' time and the lease left, which move on between the runs).
import { describe, expect, it } from "vitest";
import { scripts } from "../../../src/lua/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";

describe.each(adapterCases)("tq.ticks() over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ticks");
  const { run } = scriptCalls(h);

  it("lists a running tick with its lease, queues and the jobs it holds", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const tickq = h.make(
      {
        wait: async () => {
          started();
          await held;
        },
      },
      { queues: ["default", "low"] },
    );
    expect(await tickq.ticks()).toEqual([]);
    await tickq.enqueue("wait", []);
    const tick = tickq.tick({ budgetMs: 20_000 });
    await running;
    const [info, ...rest] = await tickq.ticks();
    expect(rest).toEqual([]);
    expect(info).toMatchObject({ inflight: 1, queues: ["default", "low"] });
    expect(info!.leaseMs).toBeGreaterThan(20_000);
    expect(info!.leaseLeftMs).toBeGreaterThan(0);
    expect(info!.leaseLeftMs).toBeLessThanOrEqual(info!.leaseMs);
    expect(info!.seenAt).toBeGreaterThanOrEqual(info!.startedAt);
    release();
    await tick;
    expect(await tickq.ticks()).toEqual([]);
  });

  it("shows a tick whose lease is gone with no lease left; a replay answers alike", async () => {
    await h.redis.hset(
      `${h.prefix}ticks`,
      "t1",
      "1700000000000 30000 default mail",
      "t2",
      "1700000001000 30000 default",
    );
    await h.redis.set(`${h.prefix}tick:t2`, "x", "PX", 60_000);
    await h.redis.lpush(`${h.prefix}inproc:t1:default`, "a", "b");
    await h.redis.lpush(`${h.prefix}inproc:t1:mail`, "c");
    const before = await snapshot(h.redis, h.prefix);
    const [, entries] = (await run(scripts.ticks, ["ticks"], [1_000])) as [number, unknown[]];
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
    const [, again] = (await run(scripts.ticks, ["ticks"], [1_000])) as [number, unknown[]];
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
    const withoutClock = (list: unknown[]) => list.map((v, i) => (i % 6 === 3 ? Number(v) > 0 : String(v)));
    expect(withoutClock(again)).toEqual(withoutClock(entries));
    const byId = new Map<string, unknown[]>();
    for (let i = 0; i < entries.length; i += 6) byId.set(String(entries[i]), entries.slice(i, i + 6));
    expect(byId.get("t1")!.map(String)).toEqual(["t1", "1700000000000", "30000", "-2", "3", "default mail"]);
    expect(Number(byId.get("t2")![3])).toBeGreaterThan(0);
  });
});
