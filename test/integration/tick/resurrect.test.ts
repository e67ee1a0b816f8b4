import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { fixtureArgs } from "../../helpers/fixture-bundle.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describe.each(adapterCases)("resurrection over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "resurrect");

  /** Runs a tick in a child process and SIGKILLs it once all `n` handlers have started. */
  async function killTickMidRun(n: number, leaseMs: number): Promise<void> {
    const child = spawn(process.execPath, fixtureArgs("tick-child.ts"), {
      env: {
        ...process.env,
        ADAPTER: adapterCase.name,
        PREFIX: h.prefix,
        BATCH: String(n),
        LEASE_MS: String(leaseMs),
        ENDPOINTS: JSON.stringify(adapterCase.endpoints()),
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const exited = new Promise((resolve) => child.once("exit", resolve));
    for (let i = 0; i < 200 && (await h.redis.scard(`${h.prefix}test:started`)) < n; i++) await sleep(50);
    expect(await h.redis.scard(`${h.prefix}test:started`), stderr).toBe(n);
    child.kill("SIGKILL");
    await exited;
  }

  it("a tick killed with SIGKILL mid-run loses nothing: after its lease, every job runs", async () => {
    const executions = new Map<string, number>();
    const tq = h.make({
      hang: (_a: unknown[], ctx) => void executions.set(ctx.jid, (executions.get(ctx.jid) ?? 0) + 1),
    });
    const jids = await tq.enqueueBulk(Array.from({ length: 20 }, (_, i) => ({ name: "hang", args: [i] })));
    await h.redis.del(`${h.prefix}test:started`);
    await killTickMidRun(20, 600);

    expect(await tq.stats()).toMatchObject({ inflight: 20, ticks: 1, queues: { default: 0 } });
    const early = await tq.tick();
    expect(early).toMatchObject({ resurrected: 0, fetched: 0 }); // the dead tick's lease has not expired yet

    await sleep(700);
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

  it("resurrected jobs go back to the head of their queue, in their order", async () => {
    const order: number[] = [];
    const tq = h.make({ hang: (args: [number]) => void order.push(args[0]) });
    await tq.enqueueBulk(Array.from({ length: 5 }, (_, i) => ({ name: "hang", args: [i] })));
    await h.redis.del(`${h.prefix}test:started`);
    await killTickMidRun(5, 300);
    await tq.enqueue("hang", [99]);
    await sleep(400);
    await tq.tick({ concurrency: 1 });
    expect(order).toEqual([0, 1, 2, 3, 4, 99]);
  });

  it("a poison job that keeps killing its tick ends dead after maxResurrections deaths while it ran alone, with the reason", async () => {
    const tq = h.make({ hang: () => {} }, { maxResurrections: 2 });
    await tq.enqueue("hang", ["poison"]);
    // The first death, in a batch, only makes it a suspect: it then runs alone and each death counts.
    for (let kill = 0; kill < 3; kill++) {
      await h.redis.del(`${h.prefix}test:started`);
      // a lease long enough for a fresh process to begin over HTTP and start the job
      await killTickMidRun(1, 600);
      await sleep(650);
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

  it("resurrects within its limit per pass and resumes on the next tick", async () => {
    const tq = h.make({ hang: () => {} });
    await tq.enqueueBulk(Array.from({ length: 7 }, (_, i) => ({ name: "hang", args: [i] })));
    await h.redis.del(`${h.prefix}test:started`);
    await killTickMidRun(7, 600);
    await sleep(650);
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
