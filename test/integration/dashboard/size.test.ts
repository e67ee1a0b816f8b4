// The dashboard's own weight in the example Worker: the bundle with it less
// the bundle with `dashboard()` stubbed out, as `npm run build:functions`
// prints it. A deployment that leaves the dashboard out does not ship it.
import { describe, expect, it } from "vitest";
import { measuredSizes } from "../../helpers/measured-sizes.js";
import { workerBundle } from "../../helpers/worker-bundle.js";

/**
 * The dashboard's budget, gzipped: 14.52 KB with the operator's items of issue 44 (grouped menu, the
 * overview's throughput chart, row selection, schedule controls and specs in words, recent ticks, one
 * time format); 16 KB leaves room for a page, within the example Worker's own budget
 * (test/integration/package/worker-bundle-size.test.ts).
 */
const DASHBOARD_BUDGET = 16 * 1024;

describe("the dashboard's size", () => {
  it("adds at most 16 KB gzipped to the example Worker", () => {
    const sizes = measuredSizes();
    expect(sizes.dashboard).toBe(sizes.worker - sizes.workerWithoutDashboard);
    // With the dashboard stubbed out, none of its code is in the bundle: a few KB at least must go.
    expect(sizes.dashboard).toBeGreaterThan(2 * 1024);
    expect(sizes.dashboard).toBeLessThanOrEqual(DASHBOARD_BUDGET);
  }, 60_000);

  it("is not bundled when a deployment leaves it out", async () => {
    // tickqWorker (and createApp) import only the dashboard's types.
    const without = await workerBundle("src/platforms/cloudflare/worker.ts");
    expect(without).not.toContain("tickq_session");
    expect(await workerBundle()).toContain("tickq_session");
  }, 60_000);
});
