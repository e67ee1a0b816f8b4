// A tick's load (running handlers, fetched jobs waiting for a slot) rides
// on calls the tick sends anyway: step's call header ("seq/running/waiting",
// the jobs it fetches counted as waiting) and extend's load argument keep it
// in the lease hash, finish leaves abandoned handlers as running, and
// stats() sums it over live ticks. Each call, run
// twice with the same arguments, leaves what one run left; a lost lease is
// never brought back by it.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { enqueuedAndBegun } from "../../helpers/seeded-ticks.js";
import { finishArgs, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;

describe.each(adapterCases)("a tick's load over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "load");
  const { call, callTwice } = scriptCalls(h);
  /** A step of t1 acking nothing; `call`: its header ("seq/running/waiting", or the seq alone). */
  const step = (call: string, batch: number) => stepArgs({ tick: "t1", leaseMs: LEASE, call, batch });
  const extend = (load: string) => ({ tickId: "t2", leaseMs: LEASE, load });

  const setup = () => enqueuedAndBegun(call, { count: 8, ticks: ["t1", "t2"], leaseMs: LEASE, batch: 1 });

  it("step keeps the load its header carries, the jobs it fetched counted as waiting; run twice, the same", async () => {
    await setup();
    const { after } = await callTwice(protocol.step, tickKeys("t1"), step("2/1/0", 3));
    expect(after["tick:t1"]).toMatchObject({ load: "1 3" });
    // A header without a load (the older form) leaves it as it was.
    await call(protocol.step, tickKeys("t1"), step("3", 1));
    expect(await h.redis.hget(`${h.prefix}tick:t1`, "load")).toBe("1 3");
  });

  it("extend keeps the load it carries, an empty one leaves it; run twice, the same; never on a lost lease", async () => {
    await setup();
    const lease = { lease: "tick:t2" };
    const { after } = await callTwice(protocol.extend, lease, extend("2 5"));
    expect(after["tick:t2"]).toMatchObject({ load: "2 5" });
    await call(protocol.extend, lease, extend(""));
    expect(await h.redis.hget(`${h.prefix}tick:t2`, "load")).toBe("2 5");
    await h.redis.del(`${h.prefix}tick:t2`);
    expect(await call(protocol.extend, lease, extend("9 9"))).toEqual({ extended: false, cancels: [] });
    expect(await h.redis.exists(`${h.prefix}tick:t2`)).toBe(0);
  });

  it("finish leaves the handlers still listed (they ignored the abort) as running, none waiting; run twice, the same", async () => {
    await setup();
    const { after } = await callTwice(
      protocol.finish,
      tickKeys("t1"),
      finishArgs({ tick: "t1", leaseMs: LEASE, call: 2 }),
    );
    expect(after["tick:t1"]).toMatchObject({ load: "1 0" });
    expect(after["inproc:t1:default"]).toHaveLength(1);
  });

  it("stats() sums the loads of live ticks only: running and waiting apart, both within what ticks hold", async () => {
    await setup();
    await call(protocol.step, tickKeys("t1"), step("2/1/0", 3));
    await call(protocol.extend, { lease: "tick:t2" }, extend("1 0"));
    const tickq = h.make({ x: () => {} });
    const stats = await tickq.stats();
    expect([stats.running, stats.fetchedWaiting, stats.inflight]).toEqual([2, 3, 5]);
    // A tick whose lease is gone runs nothing: its load is not counted (its jobs are still in flight).
    await h.redis.del(`${h.prefix}tick:t1`);
    const later = await tickq.stats();
    expect([later.running, later.fetchedWaiting, later.inflight]).toEqual([1, 0, 5]);
  });
});
