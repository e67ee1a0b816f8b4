// The no-op job rows of the peers bench: tickq (one tick loop, batch 100) against BullMQ (Worker
// concurrency 50), the systems of `npm run bench` (bench/systems/), on one Redis, in alternating
// rounds. Each drain: N jobs enqueued in bulk (not timed), then drained; Redis commands a job from
// INFO commandstats around the drain (scripts' commands included).
import { alternate, median, spread } from "../alternating.js";
import { bullmqSystem } from "../systems/bullmq.js";
import { tickqSystem } from "../systems/tickq.js";
import type { System } from "../systems/types.js";
import { commandsProcessed } from "../wire.js";

/** A client of the root's ioredis, which INFO is read through. */
type Probe = Parameters<typeof commandsProcessed>[0];

interface Sample {
  rate: number;
  commandsPerJob: number;
}

export async function runJobRows(url: string, probe: Probe, sizes: number[], rounds: number): Promise<void> {
  const label = `peers-${Date.now()}`;
  const systems: System[] = [await tickqSystem(url, label), await bullmqSystem(url, label)];
  try {
    for (const n of sizes) {
      const samples = await alternate<System, Sample>({
        variants: systems,
        rounds,
        jobs: n,
        async drain(system, jobs) {
          await system.enqueue(jobs);
          const before = await commandsProcessed(probe);
          const t = performance.now();
          await system.drain(jobs);
          const ms = performance.now() - t;
          return { rate: (jobs * 1000) / ms, commandsPerJob: ((await commandsProcessed(probe)) - before - 1) / jobs };
        },
      });
      const of = (s: System) => samples.get(s)!;
      console.log(
        `\nNo-op jobs: ${n} a drain, ${rounds} alternating rounds (after a warm-up drain of ${Math.ceil(n / 10)} each); ` +
          "tickq: one tick loop, batch 100; BullMQ: one Worker, concurrency 50",
      );
      console.table(
        systems.map((s) => ({
          system: s.name,
          "drain jobs/s (median)": Math.round(median(of(s).map((x) => x.rate))),
          "min–max": spread(of(s).map((x) => x.rate)),
          "Redis cmds/job": median(of(s).map((x) => x.commandsPerJob)).toFixed(2),
        })),
      );
      const [tickq, bullmq] = systems.map(of) as [Sample[], Sample[]];
      const ratios = tickq.map((x, r) => x.rate / bullmq[r]!.rate);
      console.log(`tickq ÷ BullMQ at ${n} jobs: ${median(ratios).toFixed(2)}× (rounds ${spread(ratios, 2)}×)`);
    }
  } finally {
    for (const s of systems) await s.close();
  }
}
