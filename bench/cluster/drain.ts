// One drain for the scaling bench (bench/cluster-scaling.ts): a tickq on an
// adapter, N no-op jobs enqueued, then drained by `loops` tick loops in this
// process, each Redis port measured around the drain (work.ts).
import { loadavg } from "node:os";
import { createTickq } from "../../src/index.js";
import type { RedisAdapter } from "../../src/types.js";
import { printRun } from "./print.js";
import { minus, workOf, type Run } from "./work.js";

export type Layout = { prefix: string; partitions?: number };
export interface DrainShape {
  jobs: number;
  loops: number;
  batch: number;
  /** A tick's `partitionsPerTick` (default: every partition, in parallel). */
  partitionsPerTick?: number;
}

const noops = { noop: () => {} };
/** A tickq on `adapter` and its drain: N jobs enqueued, then drained by LOOPS tick loops, each port measured around the drain. */
export async function drainer(
  label: string,
  adapter: RedisAdapter,
  layout: Layout,
  ports: number[],
  { jobs: N, loops: LOOPS, batch: BATCH, partitionsPerTick }: DrainShape,
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
    const cpu = process.cpuUsage();
    const t = performance.now();
    const { done, trips } = await ticks();
    const ms = performance.now() - t;
    const used = process.cpuUsage(cpu);
    if (done !== N) throw new Error(`${label}: drained ${done} of ${N}`);
    const after = await Promise.all(ports.map(workOf));
    const run: Run = {
      label,
      jobs: N,
      rate: Math.round((N / ms) * 1_000),
      nodes: after.map((a, i) => minus(a, before[i]!)),
      clientCpuUsPerJob: (used.user + used.system) / N,
      tripsPerJob: trips / N,
      load: loadavg()[0]!,
    };
    printRun(run);
    return run;
  };
}
