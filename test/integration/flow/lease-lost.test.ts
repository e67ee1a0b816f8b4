// A key's holder cut off from Redis: the network swallows its calls (they
// hang; nothing errors for redisTimeoutMs), so its lease runs out while its
// handler still runs. Another tick then takes the key. Locks "live and die
// with the holding tick's lease", so the holder's handler must see
// ctx.signal abort before the other tick can start a run of the key (as an
// ordered handler's does): a handler that obeys it never overlaps the next
// holder, whose ctx.fence is larger.
import { describe, expect, it } from "vitest";
import { createTickq, type JobContext } from "../../../src/index.js";
import { flowJobs, type FlowArgs } from "../../fixtures/flow-jobs.js";
import { adapterCases, openCuttable } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

const LEASE_MS = 1_000;

describe.each(adapterCases)("the holder of a key cut off from Redis over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-lease-lost");

  it("sees its signal abort before another tick starts a run of the key", async () => {
    const cuttable = await openCuttable(adapterCase.name);
    let holderStarted = false;
    let holderFence: number | undefined;
    let abortedAt: number | undefined;
    const holder = createTickq({
      redis: cuttable.adapter,
      prefix: h.prefix,
      logger: { info: () => {}, warn: () => {}, error: () => {} },
      jobs: flowJobs(() => async (_args: FlowArgs, ctx: JobContext) => {
        holderStarted = true;
        holderFence = ctx.fence;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 20_000);
          ctx.signal.addEventListener("abort", () => ((abortedAt = Date.now()), clearTimeout(timer), resolve()), {
            once: true,
          });
        });
      }),
    });
    let takenAt: number | undefined;
    let takerFence: number | undefined;
    const taker = h.make(
      flowJobs(() => (_args: FlowArgs, ctx: JobContext) => {
        takenAt ??= Date.now();
        takerFence ??= ctx.fence;
      }),
    );
    await taker.enqueueBulk(
      [0, 1].map(() => ({
        name: "exclusive" as const,
        args: ["k", 0] as FlowArgs,
        unique: "while-executing" as const,
      })),
    );
    const holding = holder
      .tick({ batch: 1, concurrency: 1, leaseMs: LEASE_MS, budgetMs: 30_000 })
      .catch(() => undefined);
    try {
      for (let i = 0; i < 200 && !holderStarted; i++) await sleep(25);
      expect(holderStarted).toBe(true);
      cuttable.stall();
      for (const until = Date.now() + 15_000; takenAt === undefined && Date.now() < until; ) {
        await taker.tick({ leaseMs: LEASE_MS, budgetMs: 500 });
        await sleep(50);
      }
      expect(takenAt, "another tick took the key over once the lease ran out").toBeDefined();
      expect(abortedAt, "the holder's handler was aborted").toBeDefined();
      expect(abortedAt!).toBeLessThanOrEqual(takenAt!);
      if (holderFence !== undefined) expect(takerFence!).toBeGreaterThan(holderFence);
    } finally {
      await cuttable.cut();
      await Promise.race([holding, sleep(3_000)]); // its calls fail now; it need not be waited out
      await cuttable.close();
    }
  }, 60_000);
});
