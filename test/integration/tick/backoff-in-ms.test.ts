// One unit for time: a job's backoffMs and deadMaxAgeMs take milliseconds;
// the seconds forms (backoff, deadMaxAgeSeconds) still work for a release,
// warn once per process, and giving both forms is refused.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const failing = (extra: object) => ({
  perform: () => {
    throw new Error("x");
  },
  ...extra,
});

type Redis = ReturnType<typeof useHarness>["redis"];
/** Redis' clock in fractional seconds, as the retry set's scores are written. */
const redisNow = async (redis: Redis) => {
  const [sec, usec] = await redis.time();
  return Number(sec) + Number(usec) / 1e6;
};

/** The one retry entry's delay lies between `seconds` after the clock before the tick and after it. */
async function expectRetryIn(redis: Redis, prefix: string, seconds: number, tick: () => Promise<unknown>) {
  const before = await redisNow(redis);
  await tick();
  const after = await redisNow(redis);
  const [, score] = await redis.zrange(`${prefix}retry`, "0", "-1", "WITHSCORES");
  expect(Number(score)).toBeGreaterThanOrEqual(before + seconds - 0.001);
  expect(Number(score)).toBeLessThanOrEqual(after + seconds + 0.001);
}

describe.each(adapterCases)("backoff in milliseconds over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "backoff-ms");

  it.each([
    ["backoffMs: 90,000", { backoffMs: () => 90_000 }, 90],
    ['backoffMs: "2m"', { backoffMs: () => "2m" }, 120],
  ])("%s puts the failed job in retry due that far ahead", async (_label, extra, seconds) => {
    const tq = h.make({ charge: failing(extra) });
    await tq.enqueue("charge", []);
    await expectRetryIn(h.redis, h.prefix, seconds, async () => expect(await tq.tick()).toMatchObject({ retried: 1 }));
  });

  it("deadMaxAgeMs evicts dead jobs older than it", async () => {
    const tq = h.make({ fail: failing({ retry: false }) }, { deadMaxAgeMs: 3_600_000 });
    const [now] = await h.redis.time();
    await h.redis.zadd(`${h.prefix}dead`, Number(now) - 7_200, '{"class":"old","args":[]}');
    await h.redis.zadd(`${h.prefix}dead`, Number(now) - 1_800, '{"class":"recent","args":[]}');
    await tq.enqueue("fail", []);
    expect((await tq.tick()).deadEvicted).toBe(1);
    const classes = (await h.redis.zrange(`${h.prefix}dead`, "0", "-1")).map((m) => JSON.parse(m).class);
    expect(classes.sort()).toEqual(["fail", "recent"]);
  });
});

describe("the seconds forms", () => {
  const h = useHarness(adapterCases[0]!, "backoff-sec");

  it("backoff (seconds) still sets the delay and warns once per logger, naming backoffMs", async () => {
    const tq = h.make({ charge: failing({ backoff: () => 90 }), other: failing({ backoff: () => 1 }) });
    h.make({ charge: failing({ backoff: () => 90 }) });
    await tq.enqueue("charge", []);
    await expectRetryIn(h.redis, h.prefix, 90, () => tq.tick());
    const warnings = h.logged.filter((l) => l.includes("deprecated"));
    expect(warnings).toEqual([expect.stringMatching(/jobs\.charge\.backoff returns seconds .*use backoffMs/)]);
  });

  it("deadMaxAgeSeconds still works and warns once", () => {
    h.make({ j: () => {} }, { deadMaxAgeSeconds: 60 });
    h.make({ j: () => {} }, { deadMaxAgeSeconds: 60 });
    expect(h.logged.filter((l) => l.includes("deadMaxAgeSeconds"))).toEqual([
      expect.stringMatching(/deadMaxAgeSeconds is deprecated: use deadMaxAgeMs/),
    ]);
  });

  it("refuses both forms at once, naming the one to keep", () => {
    expect(() => h.make({ j: () => {} }, { deadMaxAgeSeconds: 60, deadMaxAgeMs: 60_000 })).toThrow(
      /give deadMaxAgeMs or deadMaxAgeSeconds, not both/,
    );
    expect(() => h.make({ j: failing({ backoff: () => 1, backoffMs: () => 1 }) })).toThrow(
      /jobs\.j: give backoffMs or backoff, not both/,
    );
  });
});
