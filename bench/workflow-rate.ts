// Workflow steps/s against a git ref (issue 46: ≥ 2× the commit before the
// cost work, fc5e9a2d, without persistence). Each drain runs in a fresh
// process that imports one tree's src/ (this one, or the ref checked out in a
// temporary worktree: ref-worktree.ts), starts RUNS runs of STEPS no-op steps
// and drains them with ticks of batch 100 back to back on a private Redis
// without persistence; trees alternate round by round (the order reversed
// every other round), so the load of other processes moves both alike. A
// process drains a tenth of the runs, then the runs twice, the second measured:
// steps/s (wall), Node and Redis CPU µs a step, Redis commands a step, and Redis requests a step.
// --fsync always: the Redis keeps an AOF fsynced before each answer (what a comparison with Restate
// or DBOS runs), so a request's fsync shows in the rate (a call's size, src/workflows/call-room.ts).
//   npx tsx bench/workflow-rate.ts --ref fc5e9a2d --runs 500 --steps 10 --rounds 5 [--fsync always]
import { sampleInChild } from "./child-sample.js";
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { median, spread } from "./alternating.js";
import { worktreeOf } from "./ref-worktree.js";
import { commandCountBetween, redisUsage } from "./wire.js";
import { noopWorkflow } from "./noop-workflow.js";

interface Sample {
  stepsPerSecond: number;
  nodeUsec: number;
  redisUsec: number;
  commands: number;
  /** Tick requests a step (report.roundTrips): at fsync always, each is a write Redis fsyncs. */
  requests: number;
}

/** One process's drains of `tree`'s src/ against the Redis at `url`: a warm-up, then the measured one. */
async function drainOnce(tree: string, url: string, runs: number, steps: number): Promise<Sample> {
  const { createTickq } = await import(join(tree, "src/index.ts"));
  const { ioredisAdapter } = await import(join(tree, "src/redis/ioredis.ts"));
  const redis = new Redis(url);
  const drain = async (label: string, n: number): Promise<Sample> => {
    let completed = 0;
    const tq = createTickq({
      redis: ioredisAdapter(redis),
      prefix: `wf-rate:${label}:`,
      jobs: {},
      workflows: {
        noop: noopWorkflow(steps, () => completed++),
      },
    });
    // Trees from before startBulk start one run a call (not measured).
    const input = Array.from({ length: n }, () => ({ name: "noop", input: null }));
    if (typeof tq.workflows.startBulk === "function") {
      for (let i = 0; i < n; i += 1_000) await tq.workflows.startBulk(input.slice(i, i + 1_000));
    } else for (const run of input) await tq.workflows.start(run.name, run.input);
    const redisBefore = await redisUsage(redis);
    const nodeBefore = process.cpuUsage();
    const started = performance.now();
    let trips = 0;
    for (let ticks = 0; ; ticks++) {
      const report = await tq.tick({ budgetMs: 10_000, batch: 100 });
      trips += report.roundTrips;
      if (!report.more && completed >= n) break;
      if (ticks > 100_000) throw new Error(`only ${completed} of ${n} runs completed`);
    }
    const wall = performance.now() - started;
    const node = process.cpuUsage(nodeBefore);
    const redisAfter = await redisUsage(redis);
    await redis.flushdb();
    const total = n * steps;
    return {
      stepsPerSecond: total / (wall / 1000),
      nodeUsec: (node.user + node.system) / total,
      redisUsec: (redisAfter.cpuUsec - redisBefore.cpuUsec) / total,
      commands: commandCountBetween(redisBefore, redisAfter) / total,
      requests: trips / total,
    };
  };
  try {
    // A tenth first (the JIT compiles the tree's code), then as many runs as measured (its steady state).
    await drain("cold", Math.ceil(runs / 10));
    await drain("warm", runs);
    return await drain("measured", runs);
  } finally {
    redis.disconnect();
  }
}

function drainInChild(tree: string, url: string, runs: number, steps: number): Promise<Sample> {
  const args = ["--child", tree, "--url", url];
  args.push("--runs", String(runs), "--steps", String(steps));
  return sampleInChild<Sample>(fileURLToPath(import.meta.url), args, `drain of ${tree}`);
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

export async function runWorkflowRateBench(o: {
  ref: string;
  runs: number;
  steps: number;
  rounds: number;
  fsync?: "none" | "always";
}) {
  const repo = fileURLToPath(new URL("..", import.meta.url));
  const { startPrivate } = await import("../src/platforms/node/find-redis.js");
  const { startPrivateRedis } = await import("./chaos/private-redis.js");
  const always = o.fsync === "always";
  const server = always ? await startPrivateRedis({ appendfsync: "always" }) : await startPrivate();
  const ref = worktreeOf(repo, o.ref);
  const trees = [
    { label: o.ref, dir: ref.dir },
    { label: "this tree", dir: repo },
  ];
  const samples = new Map(trees.map((t) => [t, [] as Sample[]]));
  try {
    console.log(
      `Workflow steps: ${o.runs} runs × ${o.steps} no-op steps, ticks of batch 100 back to back, Redis ` +
        `${always ? "appendonly yes, appendfsync always" : "without persistence"}, ${o.rounds} rounds, a fresh process per drain, trees alternating; load average at start ${load()}`,
    );
    for (let round = 0; round < o.rounds; round++) {
      for (const tree of round % 2 === 0 ? trees : [...trees].reverse()) {
        const sample = await drainInChild(tree.dir, server.url, o.runs, o.steps);
        samples.get(tree)!.push(sample);
        console.log(`  round ${round + 1} ${tree.label}: ${Math.round(sample.stepsPerSecond)} steps/s`);
      }
    }
    const of = (t: (typeof trees)[number], pick: (s: Sample) => number) => samples.get(t)!.map(pick);
    console.table(
      trees.map((t) => ({
        tree: t.label,
        "steps/s (median)": Math.round(median(of(t, (s) => s.stepsPerSecond))),
        "min–max": spread(of(t, (s) => s.stepsPerSecond)),
        "Node µs/step": median(of(t, (s) => s.nodeUsec)).toFixed(1),
        "Redis µs/step": median(of(t, (s) => s.redisUsec)).toFixed(1),
        "Redis cmds/step": median(of(t, (s) => s.commands)).toFixed(2),
        "requests/step": median(of(t, (s) => s.requests ?? Number.NaN)).toFixed(3),
      })),
    );
    const [base, here] = trees as [(typeof trees)[number], (typeof trees)[number]];
    const ratios = samples.get(here)!.map((s, k) => s.stepsPerSecond / samples.get(base)!.at(k)!.stepsPerSecond);
    console.log(
      `this tree ÷ ${o.ref}, steps/s: ${(median(of(here, (s) => s.stepsPerSecond)) / median(of(base, (s) => s.stepsPerSecond))).toFixed(2)}× ` +
        `by medians; round by round ${spread(ratios, 2)}×; load average at end ${load()}`,
    );
  } finally {
    ref.remove();
    await server.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      ref: { type: "string", default: "fc5e9a2d" },
      runs: { type: "string", default: "500" },
      steps: { type: "string", default: "10" },
      rounds: { type: "string", default: "5" },
      fsync: { type: "string", default: "none" },
      child: { type: "string" },
      url: { type: "string" },
    },
  });
  if (values.child !== undefined) {
    if (!existsSync(join(values.child, "src/index.ts"))) throw new Error(`${values.child} holds no src/index.ts`);
    console.log(JSON.stringify(await drainOnce(values.child, values.url!, Number(values.runs), Number(values.steps))));
  } else {
    await runWorkflowRateBench({
      ref: values.ref,
      runs: Number(values.runs),
      steps: Number(values.steps),
      rounds: Number(values.rounds),
      fsync: values.fsync === "always" ? "always" : "none",
    });
  }
  process.exit(0);
}
