// tickq/testing's prefix: a fresh one per test tickq (so parallel files never meet), refused
// when a deployment's keys live there, refused by a production tickq once a test owns it, and
// emptied by close(). advance moves Redis-held TTLs under it, but never a tick's lease.
import type { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTickq, TickqError } from "../../../src/index.js";
import { createTestTickq } from "../../../src/testing/index.js";
import { directRedis, deleteUnder, uniquePrefix } from "../../helpers/redis.js";
import { testingCases, useTestTickqs } from "../../helpers/testing-cases.js";

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

describe.each(testingCases)("a test tickq's prefix over $name", (adapter) => {
  const t = useTestTickqs(adapter);
  let redis: Redis;
  let prefix: string;
  beforeEach(() => {
    redis = directRedis();
    prefix = uniquePrefix(`testing-${adapter.name}`);
  });
  afterEach(async () => {
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  it("is fresh for each test tickq, and close() deletes every key under it", async () => {
    const a = await t.make({ jobs: { noop: async () => {} } });
    const b = await t.make({ jobs: { noop: async () => {} } });
    expect(a.tq.prefix).not.toBe(b.tq.prefix);
    await a.tq.enqueue("noop", [], { delayMs: 60_000 });
    await a.runUntilIdle();
    expect((await redis.keys(`${globEscaped(a.tq.prefix)}*`)).length).toBeGreaterThan(0);
    await a.close();
    expect(await redis.keys(`${globEscaped(a.tq.prefix)}*`)).toEqual([]);
  });

  it("refuses a prefix that holds a deployment's keys, and leaves them alone", async () => {
    const production = createTickq({ redis: t.redis, prefix, jobs: { noop: async () => {} }, logger: quiet });
    await production.enqueue("noop", []);
    const refused = await createTestTickq({ redis: t.redis, prefix, jobs: {} }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TickqError);
    expect((refused as TickqError).code).toBe("BAD_OPTIONS");
    expect((refused as Error).message).toContain("Leave `prefix` out");
    expect(await redis.exists(`${prefix}testclock`)).toBe(0);
    expect((await production.stats()).queues.default).toBe(1);
  });

  it("makes a production tickq's tick refuse the prefix, from the reply it reads anyway", async () => {
    const test = await t.make({ prefix, jobs: { noop: async () => {} } });
    await test.clock.advance("1d");
    const production = createTickq({ redis: t.redis, prefix, jobs: { noop: async () => {} }, logger: quiet });
    const tick = await production.tick().catch((e: unknown) => e);
    expect(tick).toBeInstanceOf(TickqError);
    expect((tick as Error).message).toMatch(/belongs to a test/);
    expect(await production.stats().catch(() => "refused")).not.toBe("refused"); // reads still answer
    expect((await test.runUntilIdle()).ticks).toBe(1); // the test's own tick is not refused
  });

  it("moves the TTLs Redis keeps under the prefix, but not a tick's lease", async () => {
    const test = await t.make({ prefix, jobs: {} });
    await redis.set(`${prefix}result:j1`, "{}", "PX", 3_600_000);
    await redis.set(`${prefix}result:j2`, "{}", "PX", 7_200_000);
    await redis.set(`${prefix}tick:t1`, "lease", "PX", 30_000);
    await test.clock.advance("90m");
    expect(await redis.exists(`${prefix}result:j1`)).toBe(0);
    const left = await redis.pttl(`${prefix}result:j2`);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(30 * 60_000);
    expect(await redis.pttl(`${prefix}tick:t1`)).toBeGreaterThan(20_000);
  });

  it("moves now() forward by each advance, and never back", async () => {
    const { clock } = await t.make({ jobs: {} });
    const before = clock.now();
    await clock.advance("3d");
    expect(clock.now() - before).toBeGreaterThanOrEqual(3 * 86_400_000);
    expect(clock.now() - before).toBeLessThan(3 * 86_400_000 + 60_000);
    await expect(clock.advanceTo(before)).rejects.toThrow(/only moves forward/);
    await expect(clock.advance("soon" as "1s")).rejects.toThrow(/a duration is ms/);
  });
});

describe.each(testingCases)("runUntilIdle over $name", (adapter) => {
  const t = useTestTickqs(adapter);

  it("answers the ticks it ran and each job's outcomes", async () => {
    const { tq, runUntilIdle } = await t.make({
      jobs: {
        ok: async () => {},
        broken: {
          perform: async () => {
            throw new Error("always");
          },
          retry: 0,
        },
      },
    });
    await tq.enqueueBulk([
      { name: "ok", args: [] },
      { name: "ok", args: [] },
      { name: "broken", args: [] },
    ]);
    const report = await runUntilIdle();
    expect(report.jobs).toEqual({
      ok: { succeeded: 2, failed: 0, dead: 0 },
      broken: { succeeded: 0, failed: 1, dead: 1 },
    });
    expect(report.ticks).toBeGreaterThanOrEqual(2); // the last one found nothing to do
    expect(report.runs).toEqual({ completed: 0, failed: 0, parked: 0, retrying: 0, cancelled: 0 });
  });

  it("fails, naming what ran, when work never stops", async () => {
    const { tq, runUntilIdle } = await t.make({
      jobs: {
        again: async (): Promise<void> => {
          await tq.enqueue("again", []);
        },
      },
    });
    await tq.enqueue("again", []);
    await expect(runUntilIdle({ maxTicks: 5 })).rejects.toThrow(/still busy after 5 ticks \("again" \d+✓/);
  });
});

function globEscaped(prefix: string): string {
  return prefix.replace(/[*?[\]\\]/g, "\\$&");
}
