// npx tsx bench/drain-warmup.ts [--drains 15 --jobs 20000 --warmup 2000] [--ref REV --processes 4]
// Issue 46's short drain: the peers bench's tickq row (bench/peers/jobs.ts: one tick loop, batch 100,
// ioredis, a private Redis, the N/10 warm-up drain first) drained again and again in one process,
// each drain's rate printed beside the jobs the process had run before it. A drain early in a
// process runs code V8 has not optimized yet (or optimized, threw away and is compiling again); its
// rate says how long that lasts, its CPU a job what it costs (the compiler's and the GC's threads
// count: process.cpuUsage is the whole process), its GC pauses what the drain's garbage costs.
// Per drain: jobs/s (wall), the process's CPU µs a job, GC pauses (count, ms) and scavenges'
// share. Wall needs a quiet machine; the CPU a job reads on a busy one better, never as well as an
// instruction count (bench/client-instructions.ts).
// Run it under V8's tracing to see what the drains compile and throw away (node flags, never set
// by the bench: a user's process has none):
//   node --trace-opt --trace-deopt --import tsx bench/drain-warmup.ts --drains 8 > trace.txt
//   node --trace-gc --import tsx bench/drain-warmup.ts
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/drain-warmup.ts
// `--ref REV`: REV's tree too (a temporary worktree, this node_modules linked), each tree in fresh
// processes, `--processes` of each, alternating (the order reversed every other time): per drain,
// the median of each tree's rates and CPU a job, and the median ratio of the pairs.
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { PerformanceObserver, constants } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { worktreeOf } from "./ref-worktree.js";

const { values } = parseArgs({
  options: {
    drains: { type: "string", default: "15" },
    jobs: { type: "string", default: "20000" },
    warmup: { type: "string" },
    ref: { type: "string" },
    processes: { type: "string", default: "4" },
    json: { type: "boolean", default: false },
  },
});
const drains = Number(values.drains);
const jobs = Number(values.jobs);
const warmup = values.warmup === undefined ? Math.ceil(jobs / 10) : Number(values.warmup);

/** One measured drain of one process. */
interface Drain {
  /** Jobs the process had drained before this drain (the warm-up's included). */
  before: number;
  rate: number;
  cpuUsecPerJob: number;
  gcCount: number;
  gcMs: number;
  /** Of gcMs, the scavenges' (the young generation: per-job garbage). */
  scavengeMs: number;
}

if (values.ref === undefined) await drainAll();
else await compareTrees(values.ref);

/** In this process: the warm-up drain, then `drains` drains of `jobs`, each printed as it ends. */
async function drainAll(): Promise<void> {
  const { onPrivateRedis } = await import("./alternating.js");
  const { tickqSystem } = await import("./systems/tickq.js");
  const pauses: { kind: number; ms: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push({ kind: (e.detail as { kind: number }).kind, ms: e.duration });
  });
  observer.observe({ entryTypes: ["gc"] });
  // GC entries come in a later turn: the drain's are all in once a timer has run after it.
  const settledPauses = async () => {
    await new Promise((r) => setTimeout(r, 20));
    return pauses.splice(0);
  };
  const out: Drain[] = [];
  await onPrivateRedis(async (_probe, url) => {
    const system = await tickqSystem(url, `warmup-${process.pid}`);
    try {
      await system.enqueue(warmup);
      await system.drain(warmup);
      let before = warmup;
      if (!values.json)
        console.log(`no-op drains of ${jobs} jobs, one tick loop, batch 100, after a warm-up drain of ${warmup}`);
      for (let d = 0; d < drains; d++) {
        await system.enqueue(jobs);
        await settledPauses();
        const cpu = process.cpuUsage();
        const t = performance.now();
        await system.drain(jobs);
        const ms = performance.now() - t;
        const used = process.cpuUsage(cpu);
        const gc = await settledPauses();
        const drain: Drain = {
          before,
          rate: (jobs * 1000) / ms,
          cpuUsecPerJob: (used.user + used.system) / jobs,
          gcCount: gc.length,
          gcMs: gc.reduce((s, p) => s + p.ms, 0),
          scavengeMs: gc.filter((p) => p.kind === constants.NODE_PERFORMANCE_GC_MINOR).reduce((s, p) => s + p.ms, 0),
        };
        out.push(drain);
        before += jobs;
        if (!values.json) console.log(line(d, drain));
      }
    } finally {
      await system.close();
    }
  });
  observer.disconnect();
  if (values.json) console.log(JSON.stringify(out));
  process.exit(0);
}

function line(d: number, x: Drain): string {
  return (
    `drain ${String(d + 1).padStart(2)} after ${x.before.toLocaleString("en").padStart(7)} jobs: ` +
    `${Math.round(x.rate).toLocaleString("en").padStart(7)} jobs/s, ${x.cpuUsecPerJob.toFixed(2)} CPU µs a job, ` +
    `GC ${x.gcCount} pauses ${x.gcMs.toFixed(1)} ms (scavenges ${x.scavengeMs.toFixed(1)} ms)`
  );
}

/** This tree and `ref`'s, each drained in fresh processes, alternating; per drain, medians. */
async function compareTrees(ref: string): Promise<void> {
  const here = resolve(fileURLToPath(import.meta.url), "../..");
  const other = worktreeOf(here, ref);
  // The ref may predate this probe: run this one against its src/.
  execFileSync("cp", [join(here, "bench/drain-warmup.ts"), join(other.dir, "bench/")]);
  if (!existsSync(join(other.dir, "bench/drain-warmup.ts"))) throw new Error("the probe did not copy");
  const trees = [
    { name: ref, dir: other.dir },
    { name: "this tree", dir: here },
  ];
  const runs = new Map(trees.map((t) => [t, [] as Drain[][]]));
  try {
    const processes = Number(values.processes);
    console.log(
      `no-op drains of ${jobs} jobs (after a warm-up of ${warmup}), one tick loop, batch 100; ` +
        `${processes} processes of each tree, alternating`,
    );
    for (let p = 0; p < processes; p++) {
      for (const tree of p % 2 === 0 ? trees : [...trees].reverse()) {
        const run = await child(tree.dir);
        runs.get(tree)!.push(run);
        console.log(
          `  ${tree.name.padEnd(10)} process ${p + 1}: ${run.map((x) => Math.round(x.rate / 1000)).join(" ")} k jobs/s`,
        );
      }
    }
  } finally {
    other.remove();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const [base, mine] = trees.map((t) => runs.get(t)!) as [Drain[][], Drain[][]];
  const rows = [];
  for (let d = 0; d < drains; d++) {
    const at = (r: Drain[][]) => r.map((x) => x[d]!);
    rows.push({
      "after jobs": base[0]![d]!.before,
      [`${ref} jobs/s`]: Math.round(median(at(base).map((x) => x.rate))),
      "this jobs/s": Math.round(median(at(mine).map((x) => x.rate))),
      "ratio (median of pairs)": median(at(mine).map((x, i) => x.rate / base[i]![d]!.rate)).toFixed(3),
      [`${ref} CPU µs/job`]: median(at(base).map((x) => x.cpuUsecPerJob)).toFixed(2),
      "this CPU µs/job": median(at(mine).map((x) => x.cpuUsecPerJob)).toFixed(2),
      [`${ref} GC ms`]: median(at(base).map((x) => x.gcMs)).toFixed(1),
      "this GC ms": median(at(mine).map((x) => x.gcMs)).toFixed(1),
    });
  }
  console.table(rows);
}

function child(dir: string): Promise<Drain[]> {
  const argv = ["--import", "tsx", "bench/drain-warmup.ts", "--json"];
  argv.push("--drains", String(drains), "--jobs", String(jobs), "--warmup", String(warmup));
  return new Promise((done, fail) => {
    const c = spawn(process.execPath, argv, { cwd: dir, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    c.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    c.on("exit", (code) => {
      const last = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0 || !last.startsWith("[")) return fail(new Error(`probe in ${dir}: exit ${code}\n${out}`));
      done(JSON.parse(last) as Drain[]);
    });
  });
}
