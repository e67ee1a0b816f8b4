import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { clusterReplicasAsked, selectedAdapterNames } from "./test/helpers/adapter-names.js";

// A bad TICKQ_ADAPTERS or TICKQ_CLUSTER_REPLICAS fails the run here, once, before any test file loads.
selectedAdapterNames();
clusterReplicasAsked();

// Tests that need no Redis (test/unit/) run without the global setup: no redis-server, no REST server.
const unit = ["test/unit/**/*.test.ts"];

// Fault runs and races: tick processes killed, Redis paused or failed over, ticks racing on short
// leases. A CPU starved by another file's processes lets such a lease lapse and a job run twice, so
// `npm test` runs them one at a time after the rest (`npm run test:faults`); test:quick leaves them out.
const faults = [
  "test/integration/tick/chaos-short-run.test.ts",
  "test/integration/tick/poison-job-dies-alone.test.ts",
  "test/integration/redis/memory-pressure.test.ts",
  "test/integration/redis/cluster.test.ts",
  "test/integration/redis/cluster-failover.test.ts",
  "test/integration/partitions/partitions-spread-over-cluster.test.ts",
  "test/integration/partitions/auto-count-from-cluster-shape.test.ts",
  "test/integration/partitions/migration-keeps-what-the-old-layout-promised.test.ts",
  "test/integration/cli/cluster.test.ts",
  "test/integration/platforms/node-start-cluster.test.ts",
  "test/integration/clock/**/*.test.ts",
  "test/integration/durability/**/*.test.ts",
  "test/integration/flow/kill-holder.test.ts",
  "test/integration/flow/kill-race.test.ts",
  "test/integration/flow/limits.test.ts",
  "test/integration/flow/starvation.test.ts",
  "test/integration/cancel/ordered-kill.test.ts",
  "test/integration/ordered/chaos.test.ts",
  "test/integration/ordered/frozen.test.ts",
  "test/integration/ordered/kill.test.ts",
  "test/integration/ordered/max-payloads-kill.test.ts",
  "test/integration/ordered/race.test.ts",
  "test/integration/admin/race.test.ts",
  "test/integration/recurring/once-per-slot.test.ts",
  "test/integration/workflows/kill.test.ts",
  "test/integration/workflows/long-run.test.ts",
  "test/integration/workflows/at-maxmemory.test.ts",
  "test/integration/workflows/resume-memory.test.ts",
];

// Left out of `npm run test:quick` (TICKQ_QUICK=1), never out of `npm test`: each takes seconds to a
// minute to build or pack the package, or drives an outside program (Chromium, Ruby Sidekiq, workerd,
// the bundled CLI).
const slow = [
  "test/integration/package/**/*.test.ts",
  "test/integration/examples/**/*.test.ts",
  "test/integration/platforms/wrangler-dry-run.test.ts",
  "test/integration/platforms/cloudflare-worker.test.ts",
  "test/integration/platforms/vercel-function.test.ts",
  "test/integration/kick/worker.test.ts",
  "test/integration/kick/worker-self.test.ts",
  "test/integration/kick/vercel.test.ts",
  "test/integration/dashboard/size.test.ts",
  "test/integration/dashboard/worker.test.ts",
  "test/integration/dashboard/browser.test.ts",
  "test/integration/recurring/worker-cron.test.ts",
  "test/integration/security/edge-entries.test.ts",
  "test/integration/security/dashboard-csp.test.ts",
  "test/integration/security/printing.test.ts",
  "test/integration/sidekiq/interop/**/*.test.ts",
  "test/integration/cli/**/*.test.ts",
];
// Tests that run apart from `npm test` (it stays under 12 minutes): those that wait for a platform's own
// scheduler (Deno.cron fires at most once a minute), build a framework (next build), or run long (20,000
// ticks over every adapter). `npm run test:scheduled` runs them; CI calls it after `npm test`.
const scheduled = ["test/scheduled/**/*.test.ts", "test/integration/tick/tick-burst-memory-every-adapter.test.ts"];

const quick = process.env.TICKQ_QUICK === "1";
const WORKERS = Math.max(3, availableParallelism() + 1);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Most of a test's time is spent waiting on Redis and child processes (the test processes used a
    // fifth of two cores' time in a run), so three files at once pay even on two cores (vitest's default
    // there is one). A fork runs file after file without reloading the modules they share, which for
    // ~250 small files was a large share of the run. Tests share no state but Redis, each under its own
    // prefix; `--maxWorkers=1 --minWorkers=1` runs one file at a time. The pool keeps its workers to the
    // end (minWorkers = maxWorkers): Vitest 3.2's forks pool failed whole runs with "Terminating worker
    // thread" when it retired idle workers before the last files ended.
    maxWorkers: WORKERS,
    minWorkers: WORKERS,
    poolOptions: { forks: { isolate: false } },
    projects: [
      { extends: true, test: { name: "unit", include: unit } },
      {
        extends: true,
        test: {
          name: "integration",
          // Everything but unit and faults, so a test file placed outside test/integration/ still runs.
          include: ["test/**/*.test.ts"],
          exclude: [...unit, ...faults, ...scheduled, ...(quick ? slow : [])],
          globalSetup: ["test/setup/global.ts"],
        },
      },
      { extends: true, test: { name: "faults", include: faults, globalSetup: ["test/setup/global.ts"] } },
      {
        extends: true,
        test: {
          name: "scheduled",
          include: scheduled,
          testTimeout: 300_000,
          globalSetup: ["test/setup/global.ts"],
          // One file at a time: the 20,000-tick burst measures the prefix's memory, and a build needs the cores.
          maxWorkers: 1,
          minWorkers: 1,
        },
      },
    ],
  },
});
