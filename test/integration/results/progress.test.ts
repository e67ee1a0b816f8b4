// ctx.progress: buffered, sent with the tick's next call to Redis (here its
// lease's extend, while the job runs), read back by result and find.
import { describe, expect, it } from "vitest";
import type { JobContext } from "../../../src/job/context.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(adapterCases)("ctx.progress over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "results-progress");

  it("shows a running job's last progress in result and find, sent with the lease's extend", async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const tq = h.make({
      long: async (_args: [], ctx: JobContext) => {
        for (let i = 1; i <= 50; i++) ctx.progress({ done: i, of: 100 }); // only the last is sent
        await released;
        return "ok";
      },
    });
    const jid = await tq.enqueue("long", []);
    const ticking = tq.tick({ leaseMs: 600 }); // extends every 200 ms
    let seen: unknown;
    for (let i = 0; i < 100 && seen === undefined; i++) {
      const result = await tq.jobs.result(jid);
      if (result.state === "running" && "progress" in result) seen = result.progress;
      else await sleep(50);
    }
    expect(seen).toEqual({ done: 50, of: 100 });
    expect((await tq.jobs.find(jid))?.progress).toEqual({ done: 50, of: 100 });
    release();
    const report = await ticking;
    expect(report.succeeded).toBe(1);
  });

  it("reaches Redis through the extend of a tick that also beats as a Sidekiq process", async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const tq = h.make(
      {
        long: async (_args: [], ctx: JobContext) => {
          ctx.progress(0.5);
          await released;
        },
      },
      { sidekiqProcesses: true },
    );
    const jid = await tq.enqueue("long", []);
    const ticking = tq.tick({ leaseMs: 600 });
    let seen: unknown;
    for (let i = 0; i < 100 && seen === undefined; i++) {
      const result = await tq.jobs.result(jid);
      if ("progress" in result) seen = result.progress;
      else await sleep(50);
    }
    expect(seen).toBe(0.5);
    release();
    expect((await ticking).succeeded).toBe(1);
  });

  it("refuses a value JSON cannot carry, or one over 4 KiB, in the handler", async () => {
    const errors: string[] = [];
    const tq = h.make({
      odd: (_args: [], ctx: JobContext) => {
        for (const value of [10n, "x".repeat(5_000)]) {
          try {
            ctx.progress(value);
          } catch (error) {
            errors.push((error as Error).message);
          }
        }
      },
    });
    await tq.enqueue("odd", []);
    expect((await tq.tick()).succeeded).toBe(1);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/not JSON/);
    expect(errors[1]).toMatch(/5002 bytes of JSON, over 4096/);
  });
});
