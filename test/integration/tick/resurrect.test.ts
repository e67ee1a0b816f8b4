import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { fixtureArgs } from "../../helpers/fixture-bundle.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describe.each(adapterCases)("resurrection over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "resurrect");

  /**
   * Runs a tick in a child process and SIGKILLs it once all `n` handlers have started. Its lease is
   * longer than any test here: the test ends it (endLease), so no stall of a loaded machine can let it
   * lapse early, in the child or before the test's own ticks.
   */
  async function killTickMidRun(n: number): Promise<void> {
    const child = spawn(process.execPath, fixtureArgs("tick-child.ts"), {
      env: {
        ...process.env,
        ADAPTER: adapterCase.name,
        PREFIX: h.prefix,
        BATCH: String(n),
        LEASE_MS: "120000",
        ENDPOINTS: JSON.stringify(adapterCase.endpoints()),
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    let exitedEarly = false;
    const exited = new Promise((resolve) => child.once("exit", resolve)).then(() => (exitedEarly = true));
    try {
      // Bounded by the test's timeout, not by a guess at how long a loaded machine takes to start a process.
      while (!exitedEarly && (await h.redis.scard(`${h.prefix}test:started`)) < n) await sleep(20);
      expect(await h.redis.scard(`${h.prefix}test:started`), stderr).toBe(n);
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
  }

  /**
   * The killed tick's lease runs out: its key goes, as at its expiry (a lease gone never comes back,
   * extend.lua), and so does the resurrector lock it took at its begin for as long as its lease.
   */
  async function endLease(): Promise<void> {
    const ids = await h.redis.hkeys(`${h.prefix}ticks`);
    expect(ids).toHaveLength(1);
    expect(await h.redis.del(`${h.prefix}tick:${ids[0]}`)).toBe(1);
    if ((await h.redis.get(`${h.prefix}resurrector`)) === ids[0]) await h.redis.del(`${h.prefix}resurrector`);
  }

  it("a tick killed with SIGKILL mid-run loses nothing: after its lease, every job runs", {
    timeout: 60_000,
  }, async () => {
    const executions = new Map<string, number>();
    const tq = h.make({
      hang: (_a: unknown[], ctx) => void executions.set(ctx.jid, (executions.get(ctx.jid) ?? 0) + 1),
    });
    const jids = await tq.enqueueBulk(Array.from({ length: 20 }, (_, i) => ({ name: "hang", args: [i] })));
    await h.redis.del(`${h.prefix}test:started`);
    await killTickMidRun(20);

    expect(await tq.stats()).toMatchObject({ inflight: 20, ticks: 1, queues: { default: 0 } });
    const early = await tq.tick();
    expect(early).toMatchObject({ resurrected: 0, fetched: 0 }); // the dead tick's lease has not run out yet

    await endLease();
    // One tick resurrects them all; each then runs alone, a round trip or two apiece, and on a loaded
    // machine the tick may hand the last ones back to their queue for the next tick (prefetch.ts).
    const report = await tq.tick({ batch: 50 });
    expect(report).toMatchObject({ resurrected: 20, dead: 0 });
    let succeeded = report.succeeded;
    for (let i = 0; i < 20 && succeeded < 20; i++) {
      const next = await tq.tick({ batch: 50 });
      expect(next).toMatchObject({ resurrected: 0, dead: 0 });
      succeeded += next.succeeded;
    }
    expect(succeeded).toBe(20);
    expect([...executions.keys()].sort()).toEqual([...jids].sort());
    expect([...executions.values()].every((n) => n === 1)).toBe(true);
    expect(await tq.stats()).toMatchObject({ inflight: 0, ticks: 0, queues: { default: 0 } });
  });

  it("resurrected jobs go back to the head of their queue, in their order", { timeout: 60_000 }, async () => {
    const order: number[] = [];
    const tq = h.make({ hang: (args: [number]) => void order.push(args[0]) });
    await tq.enqueueBulk(Array.from({ length: 5 }, (_, i) => ({ name: "hang", args: [i] })));
    await h.redis.del(`${h.prefix}test:started`);
    await killTickMidRun(5);
    await tq.enqueue("hang", [99]);
    await endLease();
    // Each runs alone (a suspect); a loaded machine may leave some for the next tick.
    for (let i = 0; i < 20 && order.length < 6; i++) await tq.tick({ concurrency: 1 });
    expect(order).toEqual([0, 1, 2, 3, 4, 99]);
  });

  it("a poison job that keeps killing its tick ends dead after maxResurrections deaths while it ran alone, with the reason", {
    timeout: 90_000,
  }, async () => {
    const tq = h.make({ hang: () => {} }, { maxResurrections: 2 });
    await tq.enqueue("hang", ["poison"]);
    // The first death, in a batch, only makes it a suspect: it then runs alone and each death counts.
    for (let kill = 0; kill < 3; kill++) {
      await h.redis.del(`${h.prefix}test:started`);
      await killTickMidRun(1);
      await endLease();
      // resurrect now, without fetching: a tick that serves no queue
      await h.make({ hang: () => {} }, { maxResurrections: 2, queues: ["elsewhere"] }).tick();
    }
    const report = await tq.tick();
    expect(report).toMatchObject({ fetched: 1, dead: 1, succeeded: 0 });
    const [dead] = await h.redis.zrange(`${h.prefix}dead`, "0", "-1");
    const job = JSON.parse(dead!);
    expect(job).toMatchObject({ args: ["poison"], error_class: "TickqPoisonJob" });
    expect(job.error_message).toMatch(/died 2 times/);
  });

  it("resurrects within its limit per pass and resumes on the next tick", { timeout: 60_000 }, async () => {
    const tq = h.make({ hang: () => {} });
    await tq.enqueueBulk(Array.from({ length: 7 }, (_, i) => ({ name: "hang", args: [i] })));
    await h.redis.del(`${h.prefix}test:started`);
    await killTickMidRun(7);
    await endLease();
    const serveNothing = h.make({ hang: () => {} }, { queues: ["elsewhere"] });
    const first = await serveNothing.tick({ resurrectLimit: 3, budgetMs: 0 });
    expect(first).toMatchObject({ resurrected: 3 });
    expect(await tq.stats()).toMatchObject({ inflight: 4, ticks: 1, queues: { default: 3 } });
    const second = await serveNothing.tick({ resurrectLimit: 3, budgetMs: 0 });
    const third = await serveNothing.tick({ resurrectLimit: 3, budgetMs: 0 });
    expect(second.resurrected + third.resurrected).toBe(4);
    expect(await tq.stats()).toMatchObject({ inflight: 0, ticks: 0, queues: { default: 7 } });
  });

  it("only one tick resurrects at a time: the lock holder", async () => {
    const tq = h.make({ hang: () => {} });
    await h.redis.set(`${h.prefix}resurrector`, "another-tick", "PX", 5_000);
    await h.redis.hset(`${h.prefix}ticks`, "gone", "0 1000 default");
    await h.redis.lpush(
      `${h.prefix}inproc:gone:default`,
      JSON.stringify({ class: "hang", args: [], jid: "j1", queue: "default" }),
    );
    expect((await tq.tick()).resurrected).toBe(0);
    await h.redis.del(`${h.prefix}resurrector`);
    const report = await tq.tick();
    expect(report).toMatchObject({ resurrected: 1, succeeded: 1 });
    expect(await h.redis.exists(`${h.prefix}resurrector`)).toBe(0); // released at the end of the tick
    expect(await h.redis.hexists(`${h.prefix}ticks`, "gone")).toBe(0);
  });
});
