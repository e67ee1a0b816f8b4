// What a plain job costs, against a git ref (issue 28: jobs that use no
// feature pay nothing for it; issue 29: within 5 % with metrics on). Each
// drain runs in a fresh process that imports one tree's src/ (this one, or
// the ref checked out in a temporary worktree), enqueues the no-op jobs and
// drains them in ticks of one batch on a private Redis; trees alternate
// round by round, so the load of other processes moves both alike. It
// reports CPU, not only wall time: on a shared machine the wall clock
// measures the other processes too. Each process drains a tenth of the
// jobs first (its Node CPU is the "cold" column: the JIT compiling the
// tree's code), then the jobs once unmeasured and once measured, so the
// measured drain is the steady state a long-lived process or a warm
// isolate runs at.
//   npx tsx bench/plain-cost.ts --ref c1cd743 --jobs 20000 --rounds 7 [--metrics]
// Several --ref compare several trees (each against the first, by medians), this one last.
// `--metrics` leaves metrics on (the default) in trees that have them; off, a tree gets `metrics: false`.
// `--partitions N` drains a tickq with `partitions: N` on the one Redis: a tick's N pipelines share
// its slots (src/tick/slots.ts), the path a tick over a cluster's partitions takes (refs with partitions only).
import { sampleInChild } from "./child-sample.js";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { worktreeOf } from "./ref-worktree.js";
import { commandCountBetween, redisUsage } from "./wire.js";

interface Sample {
  rate: number;
  /** Node CPU a job of the process's first drain (a tenth of the jobs): JIT compilation included. */
  coldNodeUsec: number;
  nodeUsec: number;
  redisUsec: number;
  commands: number;
}

/** CPU µs the Redis used so far (INFO cpu) and commands it ran, scripts' own calls included. */
/** One drain, in this process: `tree`'s src/ against the Redis at `url`. */
async function drainOnce(tree: string, url: string, n: number, metrics: boolean, partitions: number): Promise<Sample> {
  const { createTickq } = await import(join(tree, "src/index.ts"));
  const { ioredisAdapter } = await import(join(tree, "src/redis/ioredis.ts"));
  const redis = new Redis(url);
  const drain = async (label: string, count: number): Promise<Sample> => {
    const options: Record<string, unknown> = {
      redis: ioredisAdapter(redis),
      prefix: `plain-cost:${label}:`,
      jobs: { noop: (_args: [number]) => {} },
    };
    // Trees from before the metrics option refuse it as unknown: they have no metrics to turn off.
    if (!metrics && existsSync(join(tree, "src/metrics"))) options.metrics = false;
    if (partitions > 1) options.partitions = partitions;
    const tq = createTickq(options as never);
    for (let i = 0; i < count; i += 1_000) {
      const size = Math.min(1_000, count - i);
      await tq.enqueueBulk(Array.from({ length: size }, (_, k) => ({ name: "noop", args: [i + k] })));
    }
    const redisBefore = await redisUsage(redis);
    const nodeBefore = process.cpuUsage();
    const start = performance.now();
    let done = 0;
    while (done < count) {
      const report = await tq.tick({ batch: 100, concurrency: 100, budgetMs: 60_000 });
      done += report.succeeded;
      if (report.fetched === 0) throw new Error(`drained only ${done} of ${count}`);
    }
    const wall = performance.now() - start;
    const node = process.cpuUsage(nodeBefore);
    const redisAfter = await redisUsage(redis);
    // The partition count stays stored with the keys: each drain starts on an empty Redis.
    await redis.flushdb();
    return {
      rate: count / (wall / 1000),
      coldNodeUsec: 0,
      nodeUsec: (node.user + node.system) / count,
      redisUsec: (redisAfter.cpuUsec - redisBefore.cpuUsec) / count,
      commands: commandCountBetween(redisBefore, redisAfter) / count,
    };
  };
  try {
    // The first drain pays for compiling the tree's code (more code, more to compile): reported apart
    // as the cold cost. A second, as long as the measured one, brings the JIT to its steady state.
    const cold = await drain("cold", Math.ceil(n / 10));
    await drain("warm", n);
    return { ...(await drain("measured", n)), coldNodeUsec: cold.nodeUsec };
  } finally {
    redis.disconnect();
  }
}

/** A drain in a fresh process, so no tree's JIT state or module state reaches another's. */
function drainInChild(tree: string, url: string, n: number, metrics: boolean, partitions: number): Promise<Sample> {
  const args = ["--child", tree, "--url", url, "--jobs", String(n)];
  if (metrics) args.push("--metrics");
  if (partitions > 1) args.push("--partitions", String(partitions));
  return sampleInChild<Sample>(fileURLToPath(import.meta.url), args, `drain of ${tree}`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const range = (xs: number[], digits: number) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

export async function runPlainCostBench(options: {
  refs: string[];
  jobs: number;
  rounds: number;
  metrics: boolean;
  partitions?: number;
}): Promise<void> {
  const partitions = options.partitions ?? 1;
  const repo = fileURLToPath(new URL("..", import.meta.url));
  const { startPrivate } = await import("../src/platforms/node/find-redis.js");
  const server = await startPrivate();
  const worktrees = options.refs.map((ref) => ({ ref, ...worktreeOf(repo, ref) }));
  const trees = [...worktrees.map((w) => ({ label: w.ref, dir: w.dir })), { label: "this tree", dir: repo }];
  const samples = new Map(trees.map((t) => [t, [] as Sample[]]));
  try {
    console.log(
      `Plain-job drain: ${options.jobs} no-op jobs, ticks of batch 100, metrics ${options.metrics ? "on (default)" : "off"}, ` +
        `${partitions > 1 ? `partitions: ${partitions}, ` : ""}` +
        `${options.rounds} rounds, a fresh process per drain, trees alternating`,
    );
    for (let round = 0; round < options.rounds; round++) {
      for (const tree of round % 2 === 0 ? trees : [...trees].reverse()) {
        const sample = await drainInChild(tree.dir, server.url, options.jobs, options.metrics, partitions);
        samples.get(tree)!.push(sample);
        console.log(
          `  round ${round + 1} ${tree.label}: ${JSON.stringify(sample, (_k, v) => (typeof v === "number" ? Number(v.toFixed(3)) : v))}`,
        );
      }
    }
    type Tree = (typeof trees)[number];
    const of = (t: Tree, pick: (s: Sample) => number) => samples.get(t)!.map(pick);
    const row = (t: Tree) => ({
      tree: t.label,
      "jobs/s (median, range)": `${Math.round(median(of(t, (s) => s.rate)))} (${range(
        of(t, (s) => s.rate / 1000),
        1,
      )} k)`,
      "cold Node µs/job": `${median(of(t, (s) => s.coldNodeUsec)).toFixed(2)} (${range(
        of(t, (s) => s.coldNodeUsec),
        2,
      )})`,
      "Node µs/job": `${median(of(t, (s) => s.nodeUsec)).toFixed(2)} (${range(
        of(t, (s) => s.nodeUsec),
        2,
      )})`,
      "Redis µs/job": `${median(of(t, (s) => s.redisUsec)).toFixed(2)} (${range(
        of(t, (s) => s.redisUsec),
        2,
      )})`,
      "Redis cmds/job": median(of(t, (s) => s.commands)).toFixed(3),
    });
    console.table(trees.map(row));
    // Each tree against the first ref, by medians.
    const base = trees[0]!;
    for (const t of trees.slice(1)) {
      const change = (pick: (s: Sample) => number) =>
        `${((median(of(t, pick)) / median(of(base, pick)) - 1) * 100).toFixed(1)} %`;
      console.log(
        `${t.label} vs ${base.label}: Node CPU ${change((s) => s.nodeUsec)}, Redis CPU ${change((s) => s.redisUsec)}, ` +
          `Node + Redis ${change((s) => s.nodeUsec + s.redisUsec)}, wall rate ${change((s) => s.rate)}; ` +
          `cold Node CPU (the process's first ${Math.ceil(options.jobs / 10)} jobs) ${change((s) => s.coldNodeUsec)}`,
      );
    }
  } finally {
    for (const w of worktrees) w.remove();
    await server.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      ref: { type: "string", multiple: true, default: ["c1cd743"] },
      jobs: { type: "string", default: "20000" },
      rounds: { type: "string", default: "7" },
      metrics: { type: "boolean", default: false },
      partitions: { type: "string", default: "1" },
      child: { type: "string" },
      url: { type: "string" },
    },
  });
  if (values.child !== undefined) {
    if (!existsSync(join(values.child, "src/index.ts"))) throw new Error(`${values.child} holds no src/index.ts`);
    const sample = await drainOnce(
      values.child,
      values.url!,
      Number(values.jobs),
      values.metrics,
      Number(values.partitions),
    );
    console.log(JSON.stringify(sample));
  } else {
    await runPlainCostBench({
      refs: values.ref,
      jobs: Number(values.jobs),
      rounds: Number(values.rounds),
      metrics: values.metrics,
      partitions: Number(values.partitions),
    });
  }
  process.exit(0);
}
