// A size budget, not a timing assertion: the example Worker, bundled as
// `npm run build:functions` bundles it (esbuild, minified, workerd
// conditions), must stay under a stated gzipped size, so a dependency or a
// copy of the Lua that creeps in fails here rather than in a deploy. The
// dashboard's own budget (with it included, 60 KB) belongs beside this one.
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { workerBundle } from "./helpers/worker-bundle.js";

/** The example Worker without the dashboard, gzipped: 57.0 KB measured when set (README, "Bundles"). */
const WORKER_BUDGET_KB = 58;

const gzippedKb = (code: string) => gzipSync(code).length / 1024;

describe("bundle size", () => {
  it(`the example Worker (no dashboard) stays under ${WORKER_BUDGET_KB} KB gzipped`, async () => {
    const code = await workerBundle();
    expect(gzippedKb(code)).toBeGreaterThan(10); // the bundle really holds tickq
    expect(gzippedKb(code)).toBeLessThanOrEqual(WORKER_BUDGET_KB);
  });

  it("carries no @upstash/redis and each Lua library once", async () => {
    const code = await workerBundle();
    expect(code).not.toMatch(/@upstash\/redis|UpstashError/);
    // lib/common.lua's clock helper, once, however many entry scripts include it
    expect(code.split("local function now_ms()").length - 1).toBe(1);
  });
});
