// The dashboard's own weight in the example Worker: the bundle with it less
// the bundle with `dashboard()` stubbed out, as `npm run build:functions`
// prints it. A deployment that leaves the dashboard out does not ship it.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { workerBundle } from "../helpers/worker-bundle.js";

/** The dashboard's budget, gzipped. (The whole example Worker's budget, 60 KB, is checked where the Worker's size is.) */
const DASHBOARD_BUDGET = 15 * 1024;

describe("the dashboard's size", () => {
  it("adds at most 15 KB gzipped to the example Worker", () => {
    const out = execFileSync(process.execPath, ["scripts/build-functions.mjs", "--measure"], { encoding: "utf8" });
    const sizes = JSON.parse(/sizes-bytes (.*)/.exec(out)![1]!) as { worker: number; workerWithoutDashboard: number; dashboard: number };
    expect(sizes.dashboard).toBe(sizes.worker - sizes.workerWithoutDashboard);
    // With the dashboard stubbed out, none of its code is in the bundle: a few KB at least must go.
    expect(sizes.dashboard).toBeGreaterThan(2 * 1024);
    expect(sizes.dashboard).toBeLessThanOrEqual(DASHBOARD_BUDGET);
  }, 60_000);

  it("is not bundled when a deployment leaves it out", async () => {
    // tickqWorker (and createApp) import only the dashboard's types.
    const without = await workerBundle("functions/cloudflare/worker.ts");
    expect(without).not.toContain("tickq_session");
    expect(await workerBundle()).toContain("tickq_session");
  }, 60_000);
});
