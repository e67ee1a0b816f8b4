// The workflow part of `npm run bench` (also alone: npx tsx bench/workflows.ts
// [--runs 1000 --steps 10 --repeats 3 --resume-steps 100 --fsync none|always --peer]), on a private
// redis-server (--fsync always: appendonly yes, appendfsync always, the throughput table only; --peer:
// only steps/s of RUNS × STEPS and a lone run's ms from start to end, as one JSON line). RUNS
// runs of a STEPS-step workflow (each step a no-op returning its number) are
// started, then ticks of batch 100 run back to back until every run has
// completed: steps/s, and tickq's Redis calls a step (report.roundTrips
// summed ÷ steps) and a run (starts included: one startBulk call per 1,000 runs). Beside it, in the same run
// and alternating with it, RUNS × STEPS plain no-op jobs drained the same
// way: jobs/s and round trips a job. And one run of the workflow alone (its
// ticks' begin and finish included: the cost a run pays with nobody to share
// calls with). Medians of REPEATS. Then the cost of resuming one run of
// RESUME steps of 250 KB results (bench/workflow-resume.ts), and what kept
// events cost in memory and round trips (bench/workflow-kept-events.ts), and
// what a child run costs in Redis requests and commands
// (bench/workflow-children.ts).
//
// The side-by-side is a model, not a measurement: a per-step callback
// design (QStash / Upstash Workflow) delivers each step as one HTTP request
// from the service to the app, and the app answers each step by calling the
// service back with the step's result (the state the next delivery carries).
// Per run: 1 request to start it, then per step 1 delivery + 1 call back
// with its result = 1 + 2 × STEPS requests. A design that keeps the state
// in a store instead reads it and writes it once per step: 1 + 3 × STEPS.
import { parseArgs } from "node:util";
import { createTickq } from "../src/index.js";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { Redis } from "ioredis";
import { runResumeBench } from "./workflow-resume.js";
import { runKeptEventsBench } from "./workflow-kept-events.js";
import { runChildrenBench } from "./workflow-children.js";
import { startPrivateRedis } from "./chaos/private-redis.js";

export const workflowOptions = {
  "workflow-runs": { type: "string", default: "1000" },
  "workflow-steps": { type: "string", default: "10" },
  "workflow-resume-steps": { type: "string", default: "100" },
} as const;

interface Figures {
  perSecond: number;
  tripsPerUnit: number;
  tripsPerRun: number;
  /** Redis commands a step or job while draining (INFO commandstats, scripts' commands and the calls included). */
  commandsPerUnit: number;
  /** From the first start call to the last run's end (ticks included), ms. */
  latencyMs: number;
}

/** Redis' durability in a run of the bench: none (no AOF, no RDB) or every write fsynced before its answer. */
export type Fsync = "none" | "always";

/** Every command Redis ran so far (INFO commandstats), INFO itself left out. */
export async function commandsRun(client: Redis): Promise<number> {
  const info = await client.info("commandstats");
  let sum = 0;
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (m[1] !== "info") sum += Number(m[2]);
  return sum;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function drain(
  tq: { tick(o: { budgetMs: number; batch: number }): Promise<{ roundTrips: number; more: boolean }> },
  done: () => Promise<boolean>,
) {
  let trips = 0;
  for (let i = 0; i < 100_000; i++) {
    const report = await tq.tick({ budgetMs: 10_000, batch: 100 });
    trips += report.roundTrips;
    if (!report.more && (await done())) return trips;
  }
  throw new Error("bench/workflows: the drain did not finish");
}

export async function measureWorkflows(url: string, prefix: string, runs: number, steps: number): Promise<Figures> {
  const client = new Redis(url);
  const probe = new Redis(url);
  const tq = createTickq({
    redis: ioredisAdapter(client),
    prefix,
    jobs: {},
    workflows: {
      tenSteps: {
        run: async (_: null, step) => {
          let sum = 0;
          for (let i = 0; i < steps; i++) sum += await step.run(`s${i}`, () => i);
          return sum;
        },
      },
    },
  });
  // startBulk: one call per 1,000 runs (before it, one call a run: 0.1 of the 0.22 requests a step).
  const ids: string[] = [];
  let startCalls = 0;
  const first = performance.now();
  for (let i = 0; i < runs; i += 1_000, startCalls++) {
    const chunk = Array.from({ length: Math.min(1_000, runs - i) }, () => ({ name: "tenSteps" as const, input: null }));
    ids.push(...(await tq.workflows.startBulk(chunk)));
  }
  const commandsBefore = await commandsRun(probe);
  let checks = 0;
  const started = performance.now();
  const trips = await drain(tq, async () => {
    checks++;
    return (await tq.stats()).workflows.tenSteps!.completed === runs;
  });
  const ms = performance.now() - started;
  const commands = (await commandsRun(probe)) - commandsBefore - checks * (await statsCommands(tq, probe));
  const expected = (steps * (steps - 1)) / 2;
  for (const id of [ids[0]!, ids.at(-1)!]) {
    const run = await tq.workflows.get(id);
    if (run?.output !== expected)
      throw new Error(`bench/workflows: run ${id} ended ${run?.status} with ${String(run?.output)}`);
  }
  client.disconnect();
  probe.disconnect();
  return {
    commandsPerUnit: commands / (runs * steps),
    perSecond: (runs * steps * 1000) / ms,
    tripsPerUnit: trips / (runs * steps),
    tripsPerRun: (trips + startCalls) / runs,
    latencyMs: started + ms - first,
  };
}

/** The commands one completion check (tq.stats()) costs, taken out of the drain's count. */
async function statsCommands(tq: { stats(): Promise<unknown> }, probe: Redis): Promise<number> {
  const before = await commandsRun(probe);
  await tq.stats();
  return (await commandsRun(probe)) - before;
}

async function measureJobs(url: string, prefix: string, jobs: number): Promise<Figures> {
  const client = new Redis(url);
  const probe = new Redis(url);
  let done = 0;
  const tq = createTickq({
    redis: ioredisAdapter(client),
    prefix,
    jobs: {
      noop: (_: []) => {
        done++;
      },
    },
  });
  for (let i = 0; i < jobs; i += 1_000) {
    await tq.enqueueBulk(
      Array.from({ length: Math.min(1_000, jobs - i) }, () => ({ name: "noop" as const, args: [] as [] })),
    );
  }
  const commandsBefore = await commandsRun(probe);
  const started = performance.now();
  const trips = await drain(tq, async () => done >= jobs);
  const ms = performance.now() - started;
  const commands = (await commandsRun(probe)) - commandsBefore;
  client.disconnect();
  probe.disconnect();
  return {
    perSecond: (jobs * 1000) / ms,
    tripsPerUnit: trips / jobs,
    tripsPerRun: trips / jobs,
    commandsPerUnit: commands / jobs,
    latencyMs: ms,
  };
}

/** Prints the workflow table: a private redis-server, `repeats` alternating rounds of workflows and plain jobs. */
export async function runWorkflowsBench(
  runs: number,
  steps: number,
  repeats: number,
  resume = 100,
  keptEvents = 2_000,
  fsync: Fsync = "none",
): Promise<void> {
  await runThroughputBench(runs, steps, repeats, fsync);
  if (fsync !== "none") return;
  await runResumeBench(resume);
  await runKeptEventsBench(keptEvents);
  await runChildrenBench(20);
}

/** What a peer comparison quotes (`npm run bench:peers`): medians and ranges of `repeats` rounds. */
export interface PeerFigures {
  durability: string;
  runs: number;
  steps: number;
  stepsPerSecond: { median: number; min: number; max: number };
  loneRunMs: { median: number; min: number; max: number };
}

/** A redis-server of its own: without persistence, or with every write fsynced to its AOF before it answers. */
async function durableServer(fsync: Fsync): Promise<{ url: string; stop(): Promise<void> }> {
  return fsync === "none" ? startPrivate() : startPrivateRedis({ appendfsync: "always" });
}

export const durabilityOf = (fsync: Fsync) =>
  fsync === "always"
    ? "Redis appendonly yes, appendfsync always (each write fsynced before its answer)"
    : "Redis without persistence";

/**
 * The two figures a peer comparison needs, at `fsync`: RUNS × STEPS no-op steps drained by ticks of batch
 * 100 (steps/s), and one run of STEPS steps alone, from its start to its end (ms); `repeats` rounds, alternating.
 */
export async function workflowPeerFigures(o: {
  runs: number;
  steps: number;
  repeats: number;
  fsync: Fsync;
}): Promise<PeerFigures> {
  const server = await durableServer(o.fsync);
  try {
    const wf: Figures[] = [];
    const lone: Figures[] = [];
    for (let r = 0; r < o.repeats; r++) {
      wf.push(await measureWorkflows(server.url, `pwf${r}:`, o.runs, o.steps));
      lone.push(await measureWorkflows(server.url, `plone${r}:`, 1, o.steps));
    }
    const of = (xs: number[]) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });
    return {
      durability: durabilityOf(o.fsync),
      runs: o.runs,
      steps: o.steps,
      stepsPerSecond: of(wf.map((f) => f.perSecond)),
      loneRunMs: of(lone.map((f) => f.latencyMs)),
    };
  } finally {
    await server.stop();
  }
}

async function runThroughputBench(runs: number, steps: number, repeats: number, fsync: Fsync): Promise<void> {
  if (runs <= 0) return;
  const server = await durableServer(fsync);
  try {
    const wf: Figures[] = [];
    const plain: Figures[] = [];
    const lone: Figures[] = [];
    for (let r = 0; r < repeats; r++) {
      wf.push(await measureWorkflows(server.url, `bwf${r}:`, runs, steps));
      plain.push(await measureJobs(server.url, `bjob${r}:`, runs * steps));
      lone.push(await measureWorkflows(server.url, `blone${r}:`, 1, steps));
    }
    const pick = (xs: Figures[], key: keyof Figures) => median(xs.map((f) => f[key]));
    const steps1 = steps;
    console.log(
      `\nWorkflows: ${runs} runs of ${steps} no-op steps, ticks of batch 100 back to back, ${repeats} runs alternating with ${runs * steps} plain no-op jobs; a private ${durabilityOf(fsync)}`,
    );
    console.table([
      {
        what: `workflow (${steps} steps a run)`,
        "steps or jobs/s (median)": Math.round(pick(wf, "perSecond")),
        "min–max": `${Math.round(Math.min(...wf.map((f) => f.perSecond)))}–${Math.round(Math.max(...wf.map((f) => f.perSecond)))}`,
        "round trips/step or job": pick(wf, "tripsPerUnit").toFixed(4),
        "Redis cmds/step or job": pick(wf, "commandsPerUnit").toFixed(2),
        "Redis requests/run (start included)": pick(wf, "tripsPerRun").toFixed(2),
      },
      {
        what: `one run alone (${steps} steps)`,
        "steps or jobs/s (median)": Math.round(pick(lone, "perSecond")),
        "min–max": `${Math.round(Math.min(...lone.map((f) => f.perSecond)))}–${Math.round(Math.max(...lone.map((f) => f.perSecond)))}`,
        "round trips/step or job": pick(lone, "tripsPerUnit").toFixed(4),
        "Redis cmds/step or job": pick(lone, "commandsPerUnit").toFixed(2),
        "Redis requests/run (start included)": pick(lone, "tripsPerRun").toFixed(2),
      },
      {
        what: "plain no-op jobs",
        "steps or jobs/s (median)": Math.round(pick(plain, "perSecond")),
        "min–max": `${Math.round(Math.min(...plain.map((f) => f.perSecond)))}–${Math.round(Math.max(...plain.map((f) => f.perSecond)))}`,
        "round trips/step or job": pick(plain, "tripsPerUnit").toFixed(4),
        "Redis cmds/step or job": pick(plain, "commandsPerUnit").toFixed(2),
        "Redis requests/run (start included)": "—",
      },
    ]);
    console.log(`workflow steps/s ÷ plain jobs/s: ${(pick(wf, "perSecond") / pick(plain, "perSecond")).toFixed(2)}×`);
    const loneMs = lone.map((f) => f.latencyMs);
    console.log(
      `a lone ${steps}-step run, from its start to its end: ${median(loneMs).toFixed(1)} ms (${Math.min(...loneMs).toFixed(1)}–${Math.max(...loneMs).toFixed(1)})`,
    );
    console.log(
      `requests a run, ${steps1} steps: tickq ${pick(wf, "tripsPerRun").toFixed(2)} to Redis; a per-step callback design (model: 1 start + per step 1 delivery + 1 call back with its result) ${1 + 2 * steps1} HTTP requests, ${1 + 3 * steps1} if each step also reads and writes its state in a store`,
    );
  } finally {
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "1000" },
      steps: { type: "string", default: "10" },
      repeats: { type: "string", default: "3" },
      "resume-steps": { type: "string", default: "100" },
      "kept-events": { type: "string", default: "2000" },
      // always: a private Redis with appendonly yes and appendfsync always (only the throughput table).
      fsync: { type: "string", default: "none" },
      // Only the two figures a peer comparison quotes, as one JSON line (PeerFigures).
      peer: { type: "boolean", default: false },
    },
  });
  const fsync = values.fsync as Fsync;
  if (fsync !== "none" && fsync !== "always") throw new Error(`--fsync is none or always, not ${values.fsync}`);
  if (values.peer) {
    const figures = await workflowPeerFigures({
      runs: Number(values.runs),
      steps: Number(values.steps),
      repeats: Number(values.repeats),
      fsync,
    });
    console.log(JSON.stringify(figures));
  } else {
    await runWorkflowsBench(
      Number(values.runs),
      Number(values.steps),
      Number(values.repeats),
      Number(values["resume-steps"]),
      Number(values["kept-events"]),
      fsync,
    );
  }
}
