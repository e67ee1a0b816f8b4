// A flow key drains within one tick's budget: a job parked on a key this
// tick holds runs in the same tick once the tick frees the key's slot, and a
// tick whose last acks send a key's next job back to its queue says `more`.
import { describe, expect, it } from "vitest";
import type { JobContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describe.each(adapterCases)("a flow key drains in one tick over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-drain");

  it("six while-executing duplicates of one key all run in one tick, one at a time", async () => {
    let live = 0;
    let most = 0;
    const tq = h.make({
      sync: {
        perform: async (_args: [string, number]) => {
          most = Math.max(most, ++live);
          await sleep(30);
          live--;
        },
        uniqueKey: ([k]: [string, number]) => k,
      },
    });
    await tq.enqueueBulk(
      Array.from({ length: 6 }, (_, i) => ({
        name: "sync" as const,
        args: ["k", i] as [string, number],
        unique: "while-executing" as const,
      })),
    );
    const report = await tq.tick({ budgetMs: 10_000 });
    expect(report).toMatchObject({ succeeded: 6, more: false });
    expect(most).toBe(1);
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(0);
  });

  it("eight jobs of a key limited to two run in one tick, never more than two at once", async () => {
    let live = 0;
    let most = 0;
    const tq = h.make({
      sync: {
        perform: async (_args: [number]) => {
          most = Math.max(most, ++live);
          await sleep(30);
          live--;
        },
        concurrency: { key: () => "shared", limit: 2 },
      },
    });
    await tq.enqueueBulk(Array.from({ length: 8 }, (_, i) => ({ name: "sync" as const, args: [i] as [number] })));
    const report = await tq.tick({ budgetMs: 10_000 });
    expect(report).toMatchObject({ succeeded: 8, more: false });
    expect(most).toBe(2);
  });

  it("says more when its last acks send the key's next job back to its queue", async () => {
    const tq = h.make({
      sync: {
        // Runs until the tick's deadline, then succeeds: its ack rides on finish.
        perform: async (_args: [string, number], ctx: JobContext) => {
          await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
        },
        uniqueKey: ([k]: [string, number]) => k,
      },
    });
    await tq.enqueueBulk(
      [0, 1].map((i) => ({
        name: "sync" as const,
        args: ["k", i] as [string, number],
        unique: "while-executing" as const,
      })),
    );
    const report = await tq.tick({ budgetMs: 300, graceMs: 1_000 });
    expect(report).toMatchObject({ succeeded: 1, more: true });
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(1);
  });
});
