// The `metrics` option: off (`false`) a tick writes no metrics key at all;
// `retentionMs` is the minutes' expiry; nonsense is BAD_OPTIONS at
// createTickq, and a bad query BAD_ARGS, nothing read.
import { describe, expect, it } from "vitest";
import { TickqError } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("the metrics option over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "metrics-option");
  const jobs = { ok: () => {}, fails: { retry: false, perform: () => Promise.reject(new Error("no")) } };
  const metricKeys = () => h.redis.keys(`${h.prefix}metrics:*`);

  it("off, a tick writes no metrics and a query finds none", async () => {
    const tq = h.make(jobs, { metrics: false });
    await tq.enqueueBulk([
      { name: "ok", args: [] },
      { name: "fails", args: [] },
    ]);
    expect(await tq.tick()).toMatchObject({ succeeded: 1, failed: 1 });
    expect(await metricKeys()).toEqual([]);
    expect((await tq.metrics.query({ sinceMs: Date.now() - 60_000 })).jobs).toEqual([]);
  });

  it("keeps each minute for retentionMs", async () => {
    const tq = h.make(jobs, { metrics: { retentionMs: 2 * 3600_000 } });
    await tq.enqueue("ok", []);
    await tq.tick();
    const [minute] = (await metricKeys()).filter((k) => /:\d+$/.test(k));
    const ttl = await h.redis.ttl(minute!);
    expect(ttl).toBeGreaterThan(2 * 3600 - 60);
    expect(ttl).toBeLessThanOrEqual(2 * 3600);
  });

  it("refuses a bad option and a bad query", async () => {
    for (const metrics of [{ retentionMs: 10 }, { retentionMs: "1h" }, "on", null] as unknown[]) {
      expect(() => h.make(jobs, { metrics: metrics as false })).toThrow(
        expect.objectContaining({ code: "BAD_OPTIONS" }),
      );
    }
    const tq = h.make(jobs);
    const now = Date.now();
    for (const query of [
      { sinceMs: now, untilMs: now - 60_000 },
      { sinceMs: now - 60_000, stepMs: 30_000 },
      { sinceMs: now - 8 * 24 * 3600_000 },
      { sinceMs: Number.NaN },
      { sinceMs: now, name: "" },
    ]) {
      await expect(tq.metrics.query(query)).rejects.toSatisfy(
        (e: unknown) => e instanceof TickqError && e.code === "BAD_ARGS",
      );
    }
  });
});
