// The rate limit holds within one fetch: a single tick whose batch takes
// many jobs of one rate-limited key at once starts no more than the limit
// in the period. (Each admitted start must count before the next job of the
// same key is judged, not only once the fetch is done.)
import { describe, expect, it } from "vitest";
import { flowJobs, RATE, type FlowArgs } from "../../fixtures/flow-jobs.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("a batch of one rate-limited key over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-rate-batch");

  it("starts at most `limit` of it in one fetch; the rest are deferred, none used a retry", async () => {
    const starts: number[] = [];
    const tq = h.make(flowJobs(() => (_args: FlowArgs, ctx) => void starts.push(ctx.attempt)));
    await tq.enqueueBulk(
      Array.from({ length: 3 * RATE.limit }, () => ({ name: "rated" as const, args: ["api", 0] as FlowArgs })),
    );
    const report = await tq.tick({ batch: 3 * RATE.limit, concurrency: 3 * RATE.limit, budgetMs: 300 });
    expect(report.succeeded).toBe(RATE.limit);
    expect(starts).toEqual(Array(RATE.limit).fill(1));
    const stats = await tq.stats();
    expect(stats.flow.rated!.deferred).toBe(2 * RATE.limit);
    expect(stats).toMatchObject({ scheduled: 2 * RATE.limit, retry: 0 });
  });
});
