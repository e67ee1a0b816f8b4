// npx tsx bench/client-instructions.ts [--jobs 20000 --shapes single,cluster3 --loops 2 --ref REV]
// The tick process's instructions a job in the no-op drain (bench/cluster/drain.ts: 2 tick
// loops, batch 100), counted by valgrind's callgrind: on a machine whose other tenants move
// CPU time by ±20 % from one run to the next, an instruction count is the same for the same
// code and inputs, so two shapes or two trees compare to a percent where timed drains cannot.
// Each shape drains in its own process under callgrind, counting only the measured drain
// (instrumented from the hook before it to the hook after: not the start, the enqueue nor the
// warm-up drain); the Redis servers run natively.
//   single    one redis-server, partitions: 1
//   plain3    the same Redis, partitions: 3 (a tick's 3 pipelines share its slots)
//   cluster1  a private 1-master cluster, one hash tag, through ioredis' Cluster client
//   cluster3  a private 3-master cluster, partitions: 3, through ioredis' Cluster client
//   bare      not tickq: the bare loop of bench/drain.ts (one Lua call moves 100 jobs, JS parses
//             and awaits each), the floor a tick's per-job work is measured against
// Under callgrind the client runs some 100 times slower, so Redis answers at once: this counts
// the client's work a job, not how the two overlap. The slots freed a second drop with it, and a
// tick over partitions sizes its fetches by that rate (slots.ts), so there it fetches in smaller
// batches than in a timed drain: compare counts at like round trips a job, which each line shows.
// Two runs at once move a count by up to 6 % (their round trips move); alone, by about 2 %.
// The count includes V8's background threads: at 20,000 jobs some 40 % of it is TurboFan compiling
// the per-job code for the first time (the N/10 warm-up ends before V8 finds that code hot; a
// --trace-opt run shows each function compiled once, not a deoptimization loop). That is a fixed
// cost, so it weighs less at --jobs 100000: compare trees at like N.
// Needs valgrind (Debian's package).
// `--repeat N`: each shape of each tree N times, the trees' order reversed every other time, then
// the median of each (a count moves with the round trips a job, which the machine's load moves).
// `--loops 1`: one tick loop (issue 46's figure: the per-job work of one loop, batch 100).
// `--ref REV` counts that tree too (a temporary worktree of it, this node_modules linked).
import { callgrindCount } from "./callgrind.js";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Run } from "./cluster/work.js";
import { worktreeOf } from "./ref-worktree.js";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "20000" },
    loops: { type: "string", default: "2" },
    repeat: { type: "string", default: "1" },
    shapes: { type: "string", default: "single,cluster3" },
    ref: { type: "string" },
    child: { type: "string" },
  },
});
const jobs = Number(values.jobs);

if (values.child !== undefined) {
  await drainCounted(values.child);
  process.exit(0);
} else await countAll();

/** In the child, under callgrind: one drain of `shape`, counted between two toggles. */
async function drainCounted(shape: string): Promise<void> {
  const { Cluster, Redis } = await import("ioredis");
  const { startPrivate } = await import("../src/platforms/node/find-redis.js");
  const { ioredisAdapter } = await import("../src/redis/ioredis.js");
  const { startPrivateRedisCluster } = await import("./chaos/private-cluster.js");
  const { drainer } = await import("./cluster/drain.js");
  const toggle = (on: boolean) => execFileSync("callgrind_control", ["-i", on ? "on" : "off", String(process.pid)]);
  const hooks = { before: async () => void toggle(true), after: async () => void toggle(false) };
  const size = { jobs, loops: Number(values.loops), batch: 100 };
  const stops: (() => Promise<void>)[] = [];
  try {
    let drain: () => Promise<Run>;
    if (shape === "bare") {
      const server = await startPrivate();
      stops.push(() => server.stop());
      const { bareLoopSystem } = await import("./systems/bare-loop.js");
      const bare = await bareLoopSystem(server.url, "ci");
      stops.push(() => bare.close());
      await bare.enqueue(Math.max(100, Math.floor(jobs / 10)));
      await bare.drain(Math.max(100, Math.floor(jobs / 10)));
      await bare.enqueue(jobs);
      await hooks.before();
      const { roundTrips = 0 } = await bare.drain(jobs, { batch: 100 });
      await hooks.after();
      console.error(`round trips a job: ${(roundTrips / jobs).toFixed(4)}`);
      return;
    }
    if (shape === "cluster3") {
      const cluster = await startPrivateRedisCluster({ masters: 3 });
      const client = new Cluster(cluster.seeds);
      stops.push(
        async () => void client.disconnect(),
        () => cluster.stop(),
      );
      const ports = (await cluster.masters()).map((m) => m.port);
      drain = await drainer(shape, ioredisAdapter(client), { prefix: "ci:", partitions: 3 }, ports, size, hooks);
    } else {
      const server = await startPrivate();
      const client = new Redis(server.url);
      stops.push(
        async () => void client.disconnect(),
        () => server.stop(),
      );
      const layout = shape === "plain3" ? { prefix: "ci:", partitions: 3 } : { prefix: "ci:" };
      const port = Number(new URL(server.url).port);
      drain = await drainer(shape, ioredisAdapter(client), layout, [port], size, hooks);
    }
    const run = await drain();
    // Read by the parent beside callgrind's count: a shape that fetched in smaller batches would do more per job.
    console.error(`round trips a job: ${run.tripsPerJob.toFixed(4)}`);
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
  process.exit(0);
}

/** Runs each shape of each tree in its own process under callgrind; prints instructions a job. */
async function countAll(): Promise<void> {
  const here = resolve(fileURLToPath(import.meta.url), "../..");
  const trees: { name: string; dir: string }[] = [];
  const ref = values.ref === undefined ? undefined : worktreeOf(here, values.ref);
  if (ref !== undefined) {
    // The ref may predate this bench or its options: run this one against its src/.
    execFileSync("cp", [join(here, "bench/client-instructions.ts"), join(ref.dir, "bench/")]);
    if (!existsSync(join(ref.dir, "bench/systems/bare-loop.ts")))
      execFileSync("cp", [join(here, "bench/systems/bare-loop.ts"), join(ref.dir, "bench/systems/")]);
    trees.push({ name: values.ref!, dir: ref.dir });
  }
  trees.push({ name: "this tree", dir: here });
  try {
    console.log(
      `the tick process's instructions a job (callgrind), no-op drain of ${jobs.toLocaleString("en")} jobs, ${values.loops} tick loop(s), batch 100`,
    );
    const repeat = Number(values.repeat);
    for (const shape of values.shapes!.split(",")) {
      const counts = new Map(trees.map((tree) => [tree, [] as number[]]));
      for (let r = 0; r < repeat; r++) {
        for (const tree of r % 2 === 0 ? trees : [...trees].reverse()) {
          const { perJob, trips } = await count(tree.dir, shape);
          counts.get(tree)!.push(perJob);
          console.log(
            `  ${shape.padEnd(9)} ${tree.name.padEnd(10)} ${perJob.toLocaleString("en")} instructions a job, ${trips} round trips a job`,
          );
        }
      }
      if (repeat > 1)
        for (const [tree, list] of counts) {
          const sorted = [...list].sort((a, b) => a - b);
          const median = sorted[Math.floor(sorted.length / 2)]!;
          console.log(
            `  ${shape.padEnd(9)} ${tree.name.padEnd(10)} median ${median.toLocaleString("en")} (${sorted[0]!.toLocaleString("en")}–${sorted.at(-1)!.toLocaleString("en")}) over ${repeat}`,
          );
        }
    }
  } finally {
    ref?.remove();
  }
}

async function count(dir: string, shape: string): Promise<{ perJob: number; trips: string | undefined }> {
  const node = [process.execPath, "--import", "tsx", "bench/client-instructions.ts", "--child", shape];
  node.push("--jobs", String(jobs), "--loops", String(values.loops));
  const { instructions, stderr } = await callgrindCount(node, dir, `${shape} in ${dir}`);
  const trips = /round trips a job: ([\d.]+)/.exec(stderr)?.[1];
  return { perJob: Math.round(instructions / jobs), trips };
}
