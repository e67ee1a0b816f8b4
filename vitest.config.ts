import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { selectedAdapterNames } from "./test/helpers/adapter-names.js";

// A bad TICKQ_ADAPTERS fails the run here, once, before any test file loads.
selectedAdapterNames();

// Tests that need no Redis (test/unit/) run without the global setup: no redis-server, no REST server.
const unit = ["test/unit/**/*.test.ts"];

// Left out of `npm run test:quick` (TICKQ_QUICK=1), never out of `npm test`: each takes seconds to minutes
// because it is a fault run (processes killed, Redis paused or failed over, ticks racing for a while), builds
// or packs the package, or drives an outside program (Chromium, Ruby Sidekiq, workerd, the bundled CLI).
const slow = [
  // fault runs and races
  "test/integration/tick/chaos-short-run.test.ts",
  "test/integration/tick/poison-job-dies-alone.test.ts",
  "test/integration/redis/memory-pressure.test.ts",
  "test/integration/redis/cluster.test.ts",
  "test/integration/clock/**",
  "test/integration/durability/replicas-wait.test.ts",
  "test/integration/durability/sentinel-failover.test.ts",
  "test/integration/flow/kill-holder.test.ts",
  "test/integration/flow/kill-race.test.ts",
  "test/integration/flow/limits.test.ts",
  "test/integration/flow/starvation.test.ts",
  "test/integration/ordered/chaos.test.ts",
  "test/integration/ordered/frozen.test.ts",
  "test/integration/ordered/kill.test.ts",
  "test/integration/ordered/race.test.ts",
  "test/integration/admin/race.test.ts",
  "test/integration/recurring/once-per-slot.test.ts",
  // the package, its bundles and the runtimes
  "test/integration/package/packed-tarball.test.ts",
  "test/integration/package/entry-points.test.ts",
  "test/integration/package/worker-bundle-size.test.ts",
  "test/integration/package/docs-snippets-compile.test.ts",
  "test/integration/platforms/wrangler-dry-run.test.ts",
  "test/integration/platforms/cloudflare-worker.test.ts",
  "test/integration/platforms/vercel-function.test.ts",
  "test/integration/kick/worker.test.ts",
  "test/integration/kick/worker-self.test.ts",
  "test/integration/kick/vercel.test.ts",
  "test/integration/dashboard/size.test.ts",
  "test/integration/dashboard/worker.test.ts",
  "test/integration/recurring/worker-cron.test.ts",
  "test/integration/security/edge-entries.test.ts",
  "test/integration/examples/**",
  // outside programs
  "test/integration/dashboard/browser.test.ts",
  "test/integration/security/dashboard-csp.test.ts",
  "test/integration/sidekiq/interop/**",
  "test/integration/cli/**",
  "test/integration/security/printing.test.ts",
];
const quick = process.env.TICKQ_QUICK === "1";

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Most of a test's time is spent waiting on Redis, child processes and leases, so two files at once pay
    // even on two cores (vitest's default there is one). A fork runs file after file without reloading the
    // modules they share: loading them again for each of ~160 files cost more than a third of the run.
    // Tests share no state but Redis, each under its own prefix; `--maxWorkers=1` runs one file at a time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    poolOptions: { forks: { isolate: false } },
    projects: [
      { extends: true, test: { name: "unit", include: unit } },
      {
        extends: true,
        test: {
          name: "integration",
          // Everything but unit, so a test file placed outside test/integration/ still runs.
          include: ["test/**/*.test.ts"],
          exclude: [...unit, ...(quick ? slow : [])],
          globalSetup: ["test/setup/global.ts"],
        },
      },
    ],
  },
});
