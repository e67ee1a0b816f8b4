// A size budget, not a timing assertion: the example Worker, bundled as
// `npm run build:functions` bundles it (esbuild, minified, workerd
// conditions), with everything it ships (the dashboard included), must stay
// under a stated gzipped size, so a dependency or a copy of the Lua that
// creeps in fails here rather than in a deploy. The budget leaves room for
// features; Cloudflare's own limit is far above it (3 MB compressed on the
// free plan). The dashboard's own budget: dashboard/size.test.ts.
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { vercelBuildOptions } from "../../../scripts/example-builds.mjs";
import { measuredSizes } from "../../helpers/measured-sizes.js";
import { workerBuild } from "../../helpers/worker-bundle.js";

/** The example Worker (examples/cloudflare-worker) with everything it ships, gzipped: 120.02 KB measured on 2026-11-28 (docs/deploy/bundles.md). */
const WORKER_BUDGET_KB = 175;

const croner = (inputs: string[]) => inputs.filter((path) => path.includes("node_modules/croner/"));

describe("bundle size", () => {
  it(`the example Worker stays under ${WORKER_BUDGET_KB} KB gzipped with everything it ships`, () => {
    const sizes = measuredSizes();
    expect(sizes.workerWithoutDashboard / 1024).toBeGreaterThan(10); // the bundle really holds tickq
    expect(sizes.worker).toBeGreaterThan(sizes.workerWithoutDashboard); // and the dashboard
    expect(sizes.worker / 1024).toBeLessThanOrEqual(WORKER_BUDGET_KB);
  }, 60_000);

  it("carries no @upstash/redis and each Lua library once", async () => {
    const { code } = await workerBuild();
    expect(code).not.toMatch(/@upstash\/redis|UpstashError/);
    // lib/common/prefix-keys.lua's date helper, once, however many entry scripts include it
    expect(code.split("string.format('%04d-%02d-%02d'").length - 1).toBe(1);
  });

  it("carries no module of tickq/testing in the Worker or the Vercel function, nor the clock script's text", async () => {
    const vercel = await build({ ...vercelBuildOptions(), metafile: true });
    const vercelCode = vercel.outputFiles?.[0]?.text ?? "";
    // 'advanced' is an answer of src/lua/test_clock.lua's alone.
    for (const code of [(await workerBuild()).code, vercelCode]) {
      expect(code.length).toBeGreaterThan(10_000);
      expect(code).not.toContain("'advanced'");
    }
    const vercelInputs = Object.entries(Object.values(vercel.metafile.outputs)[0]!.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path);
    for (const inputs of [(await workerBuild()).inputs, vercelInputs]) {
      expect(inputs.length).toBeGreaterThan(50); // the bundle really holds tickq's sources
      expect(inputs.filter((path) => path.includes("src/testing/"))).toEqual([]);
    }
  });

  it("carries no croner: the example declares no cron schedule and passes no `cron`", async () => {
    expect(croner((await workerBuild()).inputs)).toEqual([]);
    // The same check sees croner where a Worker is given `cron` (test/integration/recurring/worker-cron.test.ts runs that one).
    expect(croner((await workerBuild("test/fixtures/cron-worker.ts")).inputs)).not.toEqual([]);
  });
});
