// maxParallel: ticks counted from the live-tick registry, never more live at once.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";
import { liveTicks } from "./live.js";

describe.each(adapterCases)("maxParallel over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "parallel");

  it("a tick over the limit does not start: it answers skipped at once", async () => {
    const tq = h.make({ slow: () => sleep(300) });
    await tq.enqueueBulk(Array.from({ length: 4 }, () => ({ name: "slow" as const, args: [] })));
    const reports = await Promise.all(
      Array.from({ length: 5 }, () => tq.tick({ maxParallel: 2, concurrency: 1, batch: 1, budgetMs: 2_000 })),
    );
    const ran = reports.filter((r) => !r.skipped);
    expect(ran).toHaveLength(2);
    expect(reports.filter((r) => r.skipped).every((r) => r.fetched === 0 && !r.more)).toBe(true);
    expect(ran.reduce((n, r) => n + r.succeeded, 0)).toBe(4);
    expect(await liveTicks(h.redis, h.prefix)).toBe(0);
    // once they ended, their slots are free again
    expect((await tq.tick({ maxParallel: 2 })).skipped).toBeUndefined();
  });

  it("reserveTicks grants ids up to the limit, counting live ticks and earlier grants", async () => {
    const tq = h.make({ slow: () => sleep(300) });
    await tq.enqueue("slow", []);
    const running = tq.tick({ maxParallel: 3 });
    await sleep(100);
    const ids = await tq.reserveTicks(5, 3);
    expect(ids).toHaveLength(2);
    expect(await tq.reserveTicks(1, 3)).toHaveLength(0);
    await running;
    // a granted id runs its tick in its reserved slot
    const report = await tq.tick({ maxParallel: 3, tickId: ids[0]! });
    expect(report.skipped).toBeUndefined();
    expect(report.tickId).toBe(ids[0]);
  });
});
