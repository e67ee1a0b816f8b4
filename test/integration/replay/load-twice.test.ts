// A tick's load (running handlers, fetched jobs waiting for a slot) rides
// on calls the tick sends anyway: step's call header ("seq/running/waiting",
// the jobs it fetches counted as waiting) and extend's load argument keep it
// in the lease hash, finish leaves abandoned handlers as running, and
// stats() sums it over live ticks. Each call, run
// twice with the same arguments, leaves what one run left; a lost lease is
// never brought back by it.
import { describe, expect, it } from "vitest";
import { scripts } from "../../../src/lua/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginArgs } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";

const job = (n: number) => JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", retry: true });
const LEASE = 5_000;
const FETCH_3 = [3, 1, "default", 0];

describe.each(adapterCases)("a tick's load over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "load");
  const { run, twice } = scriptCalls(h);

  const setup = async () => {
    await run(
      scripts.enqueue,
      ["queues", "schedule"],
      ["t", 60_000, 60_000, 8, ...[1, 2, 3, 4, 5, 6, 7, 8].flatMap((n) => ["default", 0, 0, "", job(n)])],
    );
    for (const tick of ["t1", "t2"])
      await run(scripts.begin, ["ticks", `tick:${tick}`], beginArgs({ tick, leaseMs: LEASE, batch: 1 }));
  };

  it("step keeps the load its header carries, the jobs it fetched counted as waiting; run twice, the same", async () => {
    await setup();
    const { after } = await twice(
      scripts.step,
      ["ticks", "tick:t1"],
      ["t1", LEASE, 100, 3_600, "2/1/0", 0, 0, ...FETCH_3],
    );
    expect(after["tick:t1"]).toMatchObject({ load: "1 3" });
    // A header without a load (the older form) leaves it as it was.
    await run(scripts.step, ["ticks", "tick:t1"], ["t1", LEASE, 100, 3_600, "3", 0, 0, 1, 1, "default", 0]);
    expect(await h.redis.hget(`${h.prefix}tick:t1`, "load")).toBe("1 3");
  });

  it("extend keeps the load it carries, an empty one leaves it; run twice, the same; never on a lost lease", async () => {
    await setup();
    const { after } = await twice(scripts.extend, ["tick:t2"], ["t2", LEASE, "2 5"]);
    expect(after["tick:t2"]).toMatchObject({ load: "2 5" });
    await run(scripts.extend, ["tick:t2"], ["t2", LEASE, ""]);
    expect(await h.redis.hget(`${h.prefix}tick:t2`, "load")).toBe("2 5");
    await h.redis.del(`${h.prefix}tick:t2`);
    expect(await run(scripts.extend, ["tick:t2"], ["t2", LEASE, "9 9"])).toEqual([0, []]);
    expect(await h.redis.exists(`${h.prefix}tick:t2`)).toBe(0);
  });

  it("finish leaves the handlers still listed (they ignored the abort) as running, none waiting; run twice, the same", async () => {
    await setup();
    const { after } = await twice(
      scripts.finish,
      ["ticks", "tick:t1"],
      ["t1", LEASE, 100, 3_600, "2", 0, 0, 1, "default"],
    );
    expect(after["tick:t1"]).toMatchObject({ load: "1 0" });
    expect(after["inproc:t1:default"]).toHaveLength(1);
  });

  it("stats() sums the loads of live ticks only: running and waiting apart, both within what ticks hold", async () => {
    await setup();
    await run(scripts.step, ["ticks", "tick:t1"], ["t1", LEASE, 100, 3_600, "2/1/0", 0, 0, ...FETCH_3]);
    await run(scripts.extend, ["tick:t2"], ["t2", LEASE, "1 0"]);
    const tickq = h.make({ x: () => {} });
    const stats = await tickq.stats();
    expect([stats.running, stats.fetchedWaiting, stats.inflight]).toEqual([2, 3, 5]);
    // A tick whose lease is gone runs nothing: its load is not counted (its jobs are still in flight).
    await h.redis.del(`${h.prefix}tick:t1`);
    const later = await tickq.stats();
    expect([later.running, later.fetchedWaiting, later.inflight]).toEqual([1, 0, 5]);
  });
});
