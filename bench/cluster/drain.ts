// One drain for the scaling bench (bench/cluster-scaling.ts): a tickq on an
// adapter, N no-op jobs enqueued, then drained by `loops` tick loops in this
// process, each Redis port measured around the drain (work.ts).
import { loadavg } from "node:os";
import { constants, PerformanceObserver } from "node:perf_hooks";
import { createTickq } from "../../src/index.js";
import type { RedisAdapter } from "../../src/redis/types.js";
import { printRun } from "./print.js";
import { minus, runQueueWaitMs, workOf, type Run } from "./work.js";

export type Layout = { prefix: string; partitions?: number };
export interface DrainShape {
  jobs: number;
  loops: number;
  batch: number;
  /** A tick's `partitionsPerTick` (default: every partition, in parallel). */
  partitionsPerTick?: number;
}
/** Called around the measured drain only (bench/cluster-profile.ts starts and stops a CPU profile). */
export interface DrainHooks {
  before(): Promise<void>;
  after(): Promise<void>;
}

const noops = { noop: () => {} };
/** A tickq on `adapter` and its drain: N jobs enqueued, then drained by LOOPS tick loops, each port measured around the drain. */
export async function drainer(
  label: string,
  adapter: RedisAdapter,
  layout: Layout,
  ports: number[],
  { jobs: N, loops: LOOPS, batch: BATCH, partitionsPerTick }: DrainShape,
  hooks?: DrainHooks,
) {
  const tq = createTickq({ redis: adapter, ...layout, jobs: noops, logger: { info() {}, warn() {}, error() {} } });
  const enqueue = async (n: number) => {
    for (let i = 0; i < n; i += 1_000)
      await tq.enqueueBulk(Array.from({ length: Math.min(1_000, n - i) }, (_, k) => ({ name: "noop", args: [i + k] })));
  };
  const ticks = async () => {
    let done = 0;
    let trips = 0;
    await Promise.all(
      Array.from({ length: LOOPS }, async () => {
        for (;;) {
          const report = await tq.tick({ batch: BATCH, concurrency: BATCH, budgetMs: 60_000, partitionsPerTick });
          done += report.succeeded;
          trips += report.roundTrips;
          if (report.fetched === 0 && !report.more) return;
        }
      }),
    );
    return { done, trips };
  };
  // One unmeasured drain first, as bench/drain.ts does: JIT, connections and the scripts' cache warm.
  await enqueue(Math.max(100, Math.floor(N / 10)));
  await ticks();
  return async (): Promise<Run> => {
    await enqueue(N);
    const before = await Promise.all(ports.map(workOf));
    await hooks?.before();
    let gcMs = 0;
    let majorGcs = 0;
    const gc = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        gcMs += entry.duration;
        const { detail } = entry as PerformanceEntry & { detail?: { kind?: number } };
        if (detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorGcs++;
      }
    });
    gc.observe({ entryTypes: ["gc"] });
    const waited = runQueueWaitMs(process.pid);
    const usage = process.resourceUsage();
    const cpu = process.cpuUsage();
    const t = performance.now();
    const { done, trips } = await ticks();
    const ms = performance.now() - t;
    const used = process.cpuUsage(cpu);
    const usedAfter = process.resourceUsage();
    const waitedMs = runQueueWaitMs(process.pid) - waited;
    // Entries of the drain's last collections arrive in a later task.
    await new Promise((resolve) => setImmediate(resolve));
    gc.disconnect();
    await hooks?.after();
    if (done !== N) throw new Error(`${label}: drained ${done} of ${N}`);
    const after = await Promise.all(ports.map(workOf));
    const run: Run = {
      label,
      jobs: N,
      rate: Math.round((N / ms) * 1_000),
      nodes: after.map((a, i) => minus(a, before[i]!)),
      clientCpuUsPerJob: (used.user + used.system) / N,
      clientSysUsPerJob: used.system / N,
      clientGcUsPerJob: (gcMs * 1_000) / N,
      clientWaitUsPerJob: (waitedMs * 1_000) / N,
      majorGcsPerMJob: (majorGcs * 1e6) / N,
      tripsPerJob: trips / N,
      switchesPerKJob: {
        voluntary: ((usedAfter.voluntaryContextSwitches - usage.voluntaryContextSwitches) * 1_000) / N,
        involuntary: ((usedAfter.involuntaryContextSwitches - usage.involuntaryContextSwitches) * 1_000) / N,
      },
      load: loadavg()[0]!,
    };
    printRun(run);
    return run;
  };
}
