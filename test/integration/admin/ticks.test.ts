// tq.ticks(): the registry's ticks with their leases, read by ticks.lua
// (read-only: run twice, it changes nothing and answers alike but for the
// clock — Redis' time and the lease left, which move on between the runs).
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";

describe.each(adapterCases)("tq.ticks() over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ticks");
  const { call } = scriptCalls(h);

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
    const { ticks: entries } = await call(protocol.ticks, { ticks: "ticks" }, { limit: 1_000 });
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
    const { ticks: again } = await call(protocol.ticks, { ticks: "ticks" }, { limit: 1_000 });
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
    // the same answer but for the lease left, which runs down (only whether one is left stays)
    const withoutClock = (list: typeof entries) => list.map((t) => ({ ...t, leaseLeftMs: t.leaseLeftMs > 0 }));
    expect(withoutClock(again)).toEqual(withoutClock(entries));
    const byId = new Map(entries.map((t) => [t.id, t]));
    expect(byId.get("t1")).toEqual({
      id: "t1",
      startedMs: 1700000000000,
      leaseMs: 30000,
      leaseLeftMs: -2,
      inflight: 3,
      queues: "default mail",
    });
    expect(byId.get("t2")!.leaseLeftMs).toBeGreaterThan(0);
  });
});
