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
// `--profile DIR`: a CPU profile of each drain apart (node:inspector), DIR/drain-N.cpuprofile, and
// beside each drain the functions whose self time fell most from the first drain to the last: the
// code that ran slow early (not yet optimized) and what it cost.
// `--allocations`: the last drain under the sampling heap profiler (node:inspector, every 512 bytes
// on average, the objects scavenges collected included): the bytes a job allocates, by function.
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
    profile: { type: "string" },
    allocations: { type: "boolean", default: false },
    // Under callgrind (bench/drain-warmup-instructions.ts): instrumentation on for each drain, a dump after it.
    counted: { type: "boolean", default: false },
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

/** In this process: the warm-up drain, then `drains` drains of `jobs`, each printed as it ends. */
async function drainAll(): Promise<void> {
  const { onPrivateRedis } = await import("./alternating.js");
  const { tickqSystem } = await import("./systems/tickq.js");
  const pauses: { kind: number; ms: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const { kind } = (e as unknown as { detail: { kind: number } }).detail;
      pauses.push({ kind, ms: e.duration });
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  // GC entries come in a later turn: the drain's are all in once a timer has run after it.
  const settledPauses = async () => {
    await new Promise((r) => setTimeout(r, 20));
    return pauses.splice(0);
  };
  const out: Drain[] = [];
  const profiler = values.profile === undefined ? undefined : await profilerTo(values.profile);
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
        // Under V8's tracing (stdbuf -oL node --trace-opt …), what it compiled during the enqueue comes before this line.
        if (!values.json) console.log(`drain ${d + 1}: enqueued, draining`);
        const sampling = values.allocations && d === drains - 1 ? await heapSampler() : undefined;
        await profiler?.start();
        if (values.counted) callgrind("-i", "on");
        const cpu = process.cpuUsage();
        const t = performance.now();
        await system.drain(jobs);
        const ms = performance.now() - t;
        const used = process.cpuUsage(cpu);
        if (values.counted) {
          callgrind("-d", `drain-${d + 1}`);
          callgrind("-i", "off");
        }
        await profiler?.stop(d + 1);
        await sampling?.stop();
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
  if (!values.json) printSlowEarly();
  if (values.json) console.log(JSON.stringify(out));
  process.exit(0);
}

const callgrind = (...args: string[]) => execFileSync("callgrind_control", [...args, String(process.pid)]);

/** The sampling heap profiler on until stop(), which prints the bytes a job each function allocated. */
async function heapSampler(): Promise<{ stop(): Promise<void> }> {
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.enable");
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 512,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return {
    async stop() {
      const { profile } = await session.post("HeapProfiler.stopSampling");
      session.disconnect();
      type Node = (typeof profile)["head"];
      const bytes = new Map<string, number>();
      const walk = (n: Node) => {
        const f = n.callFrame;
        const name = `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*\/(src|node_modules|bench)\//, "$1/")}:${f.lineNumber + 1}`;
        bytes.set(name, (bytes.get(name) ?? 0) + n.selfSize);
        for (const c of n.children) walk(c);
      };
      walk(profile.head);
      const total = [...bytes.values()].reduce((s, x) => s + x, 0);
      console.log(`\nallocated in the last drain (sampled): ${(total / jobs).toFixed(0)} bytes a job, by function:`);
      for (const [name, b] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, 30))
        console.log(`  ${(b / jobs).toFixed(1).padStart(8)}  ${name}`);
    },
  };
}

/** Starts and stops node:inspector's CPU profiler around each drain, writing DIR/drain-N.cpuprofile. */
async function profilerTo(dir: string): Promise<{ start(): Promise<void>; stop(n: number): Promise<void> }> {
  const { Session } = await import("node:inspector/promises");
  const { mkdirSync, writeFileSync } = await import("node:fs");
  mkdirSync(dir, { recursive: true });
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  return {
    start: async () => void (await session.post("Profiler.start")),
    async stop(n) {
      const { profile } = await session.post("Profiler.stop");
      writeFileSync(join(dir, `drain-${n}.cpuprofile`), JSON.stringify(profile));
      selfTimes.push(selfTimeOf(profile));
    },
  };
}

// Each profiled drain's self time (ms) by function ("name file:line").
const selfTimes: Map<string, number>[] = [];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

function selfTimeOf(profile: { nodes: ProfileNode[]; samples?: number[]; timeDeltas?: number[] }): Map<string, number> {
  const nameOf = new Map<number, string>();
  for (const { id, callFrame: f } of profile.nodes)
    nameOf.set(
      id,
      `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*\/(src|node_modules|bench)\//, "$1/")}:${f.lineNumber + 1}`,
    );
  const self = new Map<string, number>();
  const { samples = [], timeDeltas = [] } = profile;
  // A sample's time is the delta to the next one.
  for (let k = 0; k < samples.length; k++) {
    const name = nameOf.get(samples[k]!)!;
    self.set(name, (self.get(name) ?? 0) + (timeDeltas[k + 1] ?? 0) / 1000);
  }
  return self;
}

/** The functions whose self time a job fell most from the first profiled drain to the last. */
function printSlowEarly(): void {
  const first = selfTimes[0];
  const last = selfTimes.at(-1);
  if (!first || !last || selfTimes.length < 2) return;
  const rows = [...first]
    .map(([name, ms]) => ({ name, first: ms, last: last.get(name) ?? 0 }))
    .sort((a, b) => b.first - b.last - (a.first - a.last))
    .slice(0, 40);
  const us = (ms: number) => ((ms * 1000) / jobs).toFixed(3);
  console.log(`\nself time, µs a job: drain 1, drain ${selfTimes.length} (the functions that fell most)`);
  for (const r of rows) console.log(`  ${us(r.first).padStart(7)} ${us(r.last).padStart(7)}  ${r.name}`);
  const total = (m: Map<string, number>) => [...m.values()].reduce((s, x) => s + x, 0);
  console.log(`  ${us(total(first)).padStart(7)} ${us(total(last)).padStart(7)}  (all)`);
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

if (values.ref === undefined) await drainAll();
else await compareTrees(values.ref);
