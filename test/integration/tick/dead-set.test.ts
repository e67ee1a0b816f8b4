import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("dead set over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "dead");

  it("caps the dead set by size, counting evictions", async () => {
    const tq = h.make(
      {
        fail: {
          perform: () => {
            throw new Error("x");
          },
          retry: false,
        },
      },
      { deadMaxJobs: 5 },
    );
    await tq.enqueueBulk(Array.from({ length: 8 }, (_, i) => ({ name: "fail", args: [i] })));
    const report = await tq.tick({ batch: 8 });
    expect(report).toMatchObject({ dead: 8, deadEvicted: 3 });
    expect(await h.redis.zcard(`${h.prefix}dead`)).toBe(5);
    const stats = await tq.stats();
    expect(stats).toMatchObject({ dead: 5, deadEvicted: 3 });
  });

  it("evicts dead jobs older than the age cap", async () => {
    const tq = h.make(
      {
        fail: {
          perform: () => {
            throw new Error("x");
          },
          retry: false,
        },
      },
      { deadMaxAgeSeconds: 3_600 },
    );
    const [now] = await h.redis.time();
    await h.redis.zadd(`${h.prefix}dead`, Number(now) - 7_200, '{"class":"old","args":[]}');
    await tq.enqueue("fail", []);
    const report = await tq.tick();
    expect(report.deadEvicted).toBe(1);
    const members = await h.redis.zrange(`${h.prefix}dead`, "0", "-1");
    expect(members).toHaveLength(1);
    expect(JSON.parse(members[0]!).class).toBe("fail");
  });
});
