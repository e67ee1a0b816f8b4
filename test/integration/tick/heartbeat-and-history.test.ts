import { describe, expect, it } from "vitest";
import { heartbeatWarnings } from "../../../src/tick/warnings.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe("heartbeat warnings", () => {
  const base = {
    nowMs: 10_000_000,
    lastTickAt: 10_000_000 - 1_000,
    queues: { default: 3 },
    served: { default: 10_000_000 - 1_000 },
    paused: new Set<string>(),
    due: 0,
  };

  it("says nothing when ticks run or nothing waits", () => {
    expect(heartbeatWarnings(base)).toEqual([]);
    expect(heartbeatWarnings({ ...base, lastTickAt: null, queues: { default: 0 } })).toEqual([]);
  });

  it("warns when no tick ran for 5 minutes while jobs wait, or due jobs wait", () => {
    expect(heartbeatWarnings({ ...base, lastTickAt: base.nowMs - 6 * 60_000 })).toEqual([
      expect.stringMatching(/^No tick has run for 6 min \(last at .*\) while 3 job\(s\) wait/),
    ]);
    expect(heartbeatWarnings({ ...base, lastTickAt: null, queues: {}, due: 2 })).toEqual([
      expect.stringMatching(/^No tick has ever run while 2 job\(s\) wait/),
    ]);
  });

  it("warns about a queue with jobs that no tick serves, unless it is paused", () => {
    const queues = { default: 0, reports: 4 };
    expect(heartbeatWarnings({ ...base, queues })).toEqual([
      expect.stringMatching(/^4 job\(s\) wait in queue "reports", but no tick has ever served it/),
    ]);
    expect(heartbeatWarnings({ ...base, queues, served: { reports: base.nowMs - 10 * 60_000 } })).toEqual([
      expect.stringMatching(/no tick has served it for 10 min/),
    ]);
    expect(heartbeatWarnings({ ...base, queues, paused: new Set(["reports"]) })).toEqual([]);
  });
});

describe.each(adapterCases)("heartbeat and history over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "heartbeat");

  it("records every tick; stats() reports lastTickAt and the warnings", async () => {
    const tq = h.make({ ok: () => {} });
    expect(await tq.stats()).toMatchObject({ lastTickAt: null, warnings: [] });
    await tq.enqueue("ok", []);
    await tq.enqueue("ok", [], { queue: "elsewhere" });
    expect((await tq.stats()).warnings).toEqual([expect.stringMatching(/^No tick has ever run while 2 job\(s\) wait/)]);
    const [sec] = await h.redis.time();
    await tq.tick();
    const stats = await tq.stats();
    expect(stats.lastTickAt).toBeGreaterThanOrEqual(Number(sec) * 1000);
    expect(stats.warnings).toEqual([expect.stringMatching(/queue "elsewhere", but no tick has ever served it/)]);
    await h.redis.hset(`${h.prefix}heartbeat`, "tick", stats.lastTickAt! - 7 * 60_000);
    expect((await tq.stats()).warnings).toEqual([expect.stringMatching(/^No tick has run for 7 min/)]);
  });

  it("answers processed and failed per day, oldest first, today last", async () => {
    const tq = h.make({
      ok: () => {},
      bad: {
        retry: false,
        perform: () => {
          throw new Error("x");
        },
      },
    });
    await tq.enqueueBulk([
      { name: "ok", args: [] },
      { name: "ok", args: [] },
      { name: "bad", args: [] },
    ]);
    await tq.tick();
    const [sec] = await h.redis.time();
    const day = (offset: number) => new Date((Number(sec) - offset * 86_400) * 1000).toISOString().slice(0, 10);
    await h.redis.set(`${h.prefix}stat:processed:${day(2)}`, 40);
    await h.redis.set(`${h.prefix}stat:failed:${day(2)}`, 4);
    expect(await tq.stats.history(3)).toEqual([
      { date: day(2), processed: 40, failed: 4 },
      { date: day(1), processed: 0, failed: 0 },
      { date: day(0), processed: 3, failed: 1 },
    ]);
    expect(await tq.stats.history()).toHaveLength(30);
    await expect(tq.stats.history(0)).rejects.toMatchObject({ code: "BAD_ARGS" });
    await expect(tq.stats.history(5_000)).rejects.toMatchObject({ code: "BAD_ARGS" });
  });
});
