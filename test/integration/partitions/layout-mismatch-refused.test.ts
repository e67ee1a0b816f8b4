// A partitioned tickq refuses, before it writes anything, a key space laid
// out in another partition count, and jobs left in the one-partition layout
// under its prefix (they would never run): each refusal names the fix.
import { expect, it } from "vitest";
import { TickqError } from "../../../src/index.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describeOverAdapters(adapterCases, "partition layout checked at start, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "part-meta");
  const jobs = { noop: () => {} };

  it("refuses another partition count than the stored one, naming it", async () => {
    await h.make(jobs, { partitions: 3 }).enqueue("noop", []);
    expect(await h.redis.get(`${h.prefix}partitions`)).toBe("3");
    const other = h.make(jobs, { partitions: 4 });
    const error = await other.enqueue("noop", []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TickqError);
    expect((error as TickqError).code).toBe("BAD_OPTIONS");
    expect((error as Error).message).toMatch(/partitions: 4, but .* laid out in 3 partitions.*Use partitions: 3/);
    // The command it names is for this prefix, not the default one.
    expect((error as Error).message).toContain(`tickq partitions migrate --partitions 4 --prefix ${h.prefix}`);
    await expect(other.tick()).rejects.toThrow(/laid out in 3 partitions/);
    expect((await h.make(jobs, { partitions: 3 }).stats()).queues).toEqual({ default: 1 });
  });

  it("refuses to start over jobs waiting in the one-partition layout, naming the migration", async () => {
    await h.make(jobs).enqueue("noop", [], { delayMs: 60_000 });
    const error = await h
      .make(jobs, { partitions: 3 })
      .stats()
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/1 scheduled.*migratePartitions/);
    expect(await h.redis.exists(`${h.prefix}partitions`)).toBe(1);
  });

  it("refuses a prefix with its own hash tag, and a bad count, at createTickq", () => {
    expect(() => h.make(jobs, { partitions: 3, prefix: `{${h.prefix}}` })).toThrow(/without a hash tag/);
    expect(() => h.make(jobs, { partitions: 0 })).toThrow(/whole number from 1/);
    expect(h.make(jobs, { partitions: 1 }).partitions).toBe(1);
  });
});
