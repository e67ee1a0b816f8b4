// The workflow rows of the peers bench: every engine runs RUNS runs of STEPS no-op steps started
// together, then LONE runs alone one after another (the latency of a lone run, start to result),
// engine after engine, round after round, the order reversed every other round (bench/alternating.ts).
import { alternate, median, spread } from "../alternating.js";
import type { WorkflowSystem } from "./workflow-system.js";

export interface WorkflowRowsOptions {
  runs: number;
  steps: number;
  rounds: number;
  /** Lone runs a round; their median is the round's latency. */
  lone: number;
}

interface Sample {
  stepsPerSec: number;
  loneMs: number;
  commandsPerStep?: number;
  requestsPerStep?: number;
}

export async function runWorkflowRows(systems: WorkflowSystem[], o: WorkflowRowsOptions): Promise<void> {
  const samples = await alternate<WorkflowSystem, Sample>({
    variants: systems,
    rounds: o.rounds,
    jobs: o.runs,
    async drain(system, runs) {
      const batch = await system.runMany(runs, o.steps);
      const lone: number[] = [];
      for (let i = 0; i < o.lone; i++) lone.push((await system.runMany(1, o.steps)).ms);
      return {
        stepsPerSec: (runs * o.steps * 1000) / batch.ms,
        loneMs: median(lone),
        ...(batch.commandsPerStep === undefined ? {} : { commandsPerStep: batch.commandsPerStep }),
        ...(batch.requestsPerStep === undefined ? {} : { requestsPerStep: batch.requestsPerStep }),
      };
    },
  });
  const of = (s: WorkflowSystem) => samples.get(s)!;
  const figure = (s: WorkflowSystem, key: "commandsPerStep" | "requestsPerStep", digits: number) => {
    const xs = of(s).flatMap((x) => (x[key] === undefined ? [] : [x[key]]));
    return xs.length ? median(xs).toFixed(digits) : "—";
  };
  console.log(
    `\nWorkflows: ${o.runs} runs × ${o.steps} no-op steps started together, then ${o.lone} runs alone one after another; ` +
      `${o.rounds} alternating rounds (after a warm-up of ${Math.ceil(o.runs / 10)} runs each); each engine timed from its first start to its last result`,
  );
  console.table(
    systems.map((s) => ({
      system: s.name,
      durability: s.durability,
      "steps/s (median)": Math.round(median(of(s).map((x) => x.stepsPerSec))),
      "min–max": spread(of(s).map((x) => x.stepsPerSec)),
      [`lone ${o.steps}-step run ms (median)`]: median(of(s).map((x) => x.loneMs)).toFixed(1),
      "lone min–max": spread(
        of(s).map((x) => x.loneMs),
        1,
      ),
      "Redis cmds/step": figure(s, "commandsPerStep", 2),
      "requests/step": figure(s, "requestsPerStep", 3),
    })),
  );
  // Ratios within a round (both measured under the same load), then their median and spread.
  for (const ours of systems.filter((s) => s.name.startsWith("tickq"))) {
    for (const peer of systems.filter((s) => !s.name.startsWith("tickq"))) {
      const rate = of(ours).map((x, r) => x.stepsPerSec / of(peer)[r]!.stepsPerSec);
      const lone = of(peer).map((x, r) => x.loneMs / of(ours)[r]!.loneMs);
      console.log(
        `${ours.name} ÷ ${peer.name}: steps/s ${median(rate).toFixed(2)}× (rounds ${spread(rate, 2)}×); ` +
          `lone run's latency ${peer.name} ÷ tickq ${median(lone).toFixed(2)}× (rounds ${spread(lone, 2)}×; above 1: tickq's is shorter)`,
      );
    }
  }
}
