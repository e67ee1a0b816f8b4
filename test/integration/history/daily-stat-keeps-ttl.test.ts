// The daily counters (`stat:processed:DAY`, `stat:failed:DAY`,
// lib/tick/ack-jobs.lua's bump) get their TTL when an INCRBY creates them,
// not on every call: the key made by one tick keeps it through the next
// ticks' adds, and a day's key that starts at a count above 1 has it too.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("daily stat keys over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "daily-ttl");

  it("have a TTL from the first add of the day, kept through later ticks' adds", async () => {
    const tq = h.make({
      ok: { perform: () => {} },
      bad: {
        perform: () => {
          throw new Error("no");
        },
        retry: false,
      },
    });
    const [sec] = await h.redis.time();
    const day = new Date(Number(sec) * 1000).toISOString().slice(0, 10);
    const processed = `${h.prefix}stat:processed:${day}`;
    const failed = `${h.prefix}stat:failed:${day}`;
    // A first batch of 3 processed, 2 of them failed: the key starts above 1.
    await tq.enqueueBulk([
      { name: "ok" as const, args: [] },
      { name: "bad" as const, args: [] },
      { name: "bad" as const, args: [] },
    ]);
    await tq.tick();
    expect(await h.redis.mget(processed, failed)).toEqual(["3", "2"]);
    const ttl = await h.redis.ttl(processed);
    expect(ttl).toBeGreaterThan(0);
    expect(await h.redis.ttl(failed)).toBeGreaterThan(0);
    for (let round = 0; round < 3; round++) {
      await tq.enqueue("ok", []);
      await tq.enqueue("bad", []);
      await tq.tick();
    }
    expect(await h.redis.mget(processed, failed)).toEqual(["9", "5"]);
    expect(await h.redis.ttl(processed)).toBeGreaterThan(ttl - 60);
    expect(await h.redis.ttl(failed)).toBeGreaterThan(0);
  });
});
