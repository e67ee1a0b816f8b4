// Several ticks fetching one queue at once: every job runs exactly once, and
// priority still holds up to what the ticks hold fetched but not started
// (each fetch takes the highest jobs left, atomically).
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

const TICKS = 4;
const BATCH = 5;
const PER_LEVEL = 100;
const LEVELS = [3, 2, 1, 0];

describe.each(adapterCases)("priority under concurrent ticks over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "prio-ticks");

  it("runs each job once, each level within what the ticks hold of where strict priority puts it", async () => {
    const started: { jid: string; priority: number }[] = [];
    const tq = h.make({
      job: async (args: [number], ctx) => {
        started.push({ jid: ctx.jid, priority: args[0] });
        await sleep(1);
      },
    });
    const jobs = LEVELS.flatMap((p) => Array.from({ length: PER_LEVEL }, () => p));
    // Enqueued shuffled (a fixed interleaving), so FIFO alone would not order them.
    const shuffled = jobs.map((p, i) => ({ p, key: (i * 7919) % jobs.length })).sort((a, b) => a.key - b.key);
    await tq.enqueueBulk(shuffled.map(({ p }) => ({ name: "job" as const, args: [p] as [number], priority: p })));
    await Promise.all(Array.from({ length: TICKS }, () => tq.tick({ batch: BATCH, concurrency: BATCH })));
    expect(started).toHaveLength(jobs.length);
    expect(new Set(started.map((s) => s.jid)).size).toBe(jobs.length);
    // A tick holds at most 1.5 batches fetched and not started: the slack of the order.
    const slack = TICKS * BATCH * 3;
    LEVELS.forEach((p, rank) => {
      const at = started.flatMap((s, i) => (s.priority === p ? [i] : []));
      expect(Math.min(...at)).toBeGreaterThanOrEqual(rank * PER_LEVEL - slack);
      expect(Math.max(...at)).toBeLessThan((rank + 1) * PER_LEVEL + slack);
    });
    expect(started.slice(0, BATCH * TICKS).every((s) => s.priority === 3)).toBe(true);
  });
});
