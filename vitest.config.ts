import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { selectedAdapterNames } from "./test/helpers/adapter-names.js";

// A bad TICKQ_ADAPTERS fails the run here, once, before any test file loads.
selectedAdapterNames();

// Tests that need no Redis: they run without the global setup (no redis-server, no REST server).
const unit = [
  "test/unit/**/*.test.ts",
  "test/chaos-judge.test.ts",
  "test/dashboard/cookie.test.ts",
  "test/schedules/cron-parser.test.ts",
  "test/schedules/declare.test.ts",
  "test/security/redact-user-info.test.ts",
];

// Left out of `npm run test:quick` (TICKQ_QUICK=1), never out of `npm test`: each takes seconds to minutes
// because it is a fault run (processes killed, Redis paused or failed over, ticks racing for a while), builds
// or packs the package, or drives an outside program (Chromium, Ruby Sidekiq, workerd, the bundled CLI).
const slow = [
  // fault runs and races
  "test/chaos.test.ts",
  "test/poison-batch.test.ts",
  "test/memory.test.ts",
  "test/cluster.test.ts",
  "test/clock/**",
  "test/durability/replicas.test.ts",
  "test/durability/sentinel-failover.test.ts",
  "test/flow/kill-holder.test.ts",
  "test/flow/kill-race.test.ts",
  "test/flow/limits.test.ts",
  "test/flow/starvation.test.ts",
  "test/ordered/chaos.test.ts",
  "test/ordered/frozen.test.ts",
  "test/ordered/kill.test.ts",
  "test/ordered/race.test.ts",
  "test/admin/race.test.ts",
  "test/schedules/once-per-slot.test.ts",
  // the package, its bundles and the runtimes
  "test/pack.test.ts",
  "test/package.test.ts",
  "test/bundle-size.test.ts",
  "test/readme.test.ts",
  "test/wrangler.test.ts",
  "test/worker.test.ts",
  "test/vercel.test.ts",
  "test/kick/worker.test.ts",
  "test/kick/worker-self.test.ts",
  "test/kick/vercel.test.ts",
  "test/dashboard/size.test.ts",
  "test/dashboard/worker.test.ts",
  "test/schedules/worker-cron.test.ts",
  "test/security/edge-entries.test.ts",
  // outside programs
  "test/dashboard/browser.test.ts",
  "test/security/dashboard-csp.test.ts",
  "test/sidekiq/interop/**",
  "test/cli/**",
  "test/security/printing.test.ts",
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
          include: ["test/**/*.test.ts"],
          exclude: [...unit, ...(quick ? slow : [])],
          globalSetup: ["test/setup/global.ts"],
        },
      },
    ],
  },
});
