// The queues a tickq's `queues` option lists are in stats() and
// queues.list() before any job was sent to them (empty, latency 0, not
// paused, never served), so an operator finds a declared queue where they
// look; a tickq that lists no queues shows only those Redis knows, as before.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("declared queues listed over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "declared-queues");

  it("lists every declared queue before its first job, beside the queues Redis knows", async () => {
    const tickq = h.make({ work: () => {} }, { queues: ["critical", "default"], allowUndeclaredQueues: true });
    await tickq.enqueue("work", [1], { queue: "elsewhere" });
    const stats = await tickq.stats();
    expect(stats.queues).toEqual({ critical: 0, default: 0, elsewhere: 1 });
    expect(Object.keys(stats.latency).sort()).toEqual(["critical", "default", "elsewhere"]);
    expect(stats.latency.critical).toBe(0);
    expect(await tickq.queues.list()).toEqual([
      { name: "critical", size: 0, paused: false, lastServedAt: null, latencyMs: 0 },
      { name: "default", size: 0, paused: false, lastServedAt: null, latencyMs: 0 },
      { name: "elsewhere", size: 1, paused: false, lastServedAt: null, latencyMs: expect.any(Number) },
    ]);
  });

  it("lists only the queues Redis knows when no queues are declared", async () => {
    const tickq = h.make({ work: () => {} });
    expect((await tickq.stats()).queues).toEqual({});
    expect(await tickq.queues.list()).toEqual([]);
  });
});
