// `npm run bench`'s drain, realistic, flow and workflow figures for two (or more) git refs, side by
// side, to show a change keeps them within noise (issue 41). Each ref is checked out in a temporary
// worktree (bench/ref-worktree.ts) with its Lua built there; each round runs, for each tree (the
// order reversed every other round, so the load of other processes moves both alike), a fresh child
// process that imports THAT tree's bench functions, which import that tree's src/:
//   drain       bench/systems/tickq.ts: N no-op jobs, one tick loop, batch 100 (a tenth first,
//               unmeasured): jobs/s, Redis commands a job, and Node and Redis CPU µs a job (CPU is
//               what the load of other processes moves least)
//   realistic   bench/realistic.ts: jobs of 0–100 ms (seeded), concurrency 50, batch 100: jobs/s and
//               slot use (jobs/s ÷ the limit, concurrency ÷ mean duration)
//   flow        bench/flow.ts: its six scenarios' jobs/s and Redis CPU µs a job, one run of (a) and
//               two of (b) a round
//   workflows   bench/workflows.ts: R runs × S no-op steps, steps/s (a tenth of the runs first, unmeasured)
// each on a private redis-server of its own. Prints each round's figures, then per tree the median
// and min–max, the ratio of the medians B/A, and the median and range of each round's own B/A (a
// round's two trees run back to back, so this ratio sees the least of the machine's swings); the
// load average at start and end.
//   npx tsx bench/compare-trees.ts --ref cc93b2c^1 --ref cc93b2c --rounds 5
//   [--jobs 20000 --realistic-jobs 4000 --seed 1 --flow-jobs 20000 --flow-duplicates 10000
//    --flow-plain 1000 --workflow-runs 1000 --workflow-steps 10]
// A ref whose bench/workflows.ts keeps measureWorkflows unexported (before this bench) gets an
// `export { measureWorkflows }` line appended in its temporary worktree: its code is the ref's own.
import { sampleInChild } from "./child-sample.js";
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { worktreeOf } from "./ref-worktree.js";

// Not alternating.ts's: it imports this tree's src/, which a child measuring another tree should not load.
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const spread = (xs: readonly number[], digits: number) =>
  `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

/** One child's figures, by name: a rate, a share, or a count a job. */
type Sample = Record<string, number>;

interface Sizes {
  jobs: number;
  realisticJobs: number;
  seed: number;
  flowJobs: number;
  flowDuplicates: number;
  flowPlain: number;
  workflowRuns: number;
  workflowSteps: number;
}

/** The flow bench's scenarios, as its table names them. */
const SCENARIOS = [
  ["(a) plain", "plain"],
  ["(a) while-executing", "exclusive"],
  ["(b) alone", "alone"],
  ["(b) enqueued", "enqueued"],
  ["(b) cold", "cold"],
  ["(b) parked", "parked"],
] as const;

/** The figures' names, in the order they print, and the digits each prints with. */
const FIGURES: [name: string, digits: number][] = [
  ["drain jobs/s", 0],
  ["drain Redis cmds/job", 3],
  ["drain Node CPU µs/job", 2],
  ["drain Redis CPU µs/job", 2],
  ["realistic jobs/s", 0],
  ["realistic slot use %", 1],
  ["realistic round trips/job", 4],
  ["flow (a) plain jobs/s", 0],
  ["flow (a) while-executing jobs/s", 0],
  ["flow (b) alone jobs/s", 0],
  ["flow (b) enqueued jobs/s", 0],
  ["flow (b) cold jobs/s", 0],
  ["flow (b) parked jobs/s", 0],
  ["flow (a) while-executing Redis cmds/job", 2],
  ...SCENARIOS.map(([label]): [string, number] => [`flow ${label} Redis CPU µs/job`, 1]),
  ["workflow steps/s", 0],
  ["workflow round trips/step", 4],
];

/** CPU µs the Redis process used so far (INFO cpu): the load of other processes moves it less than a rate. */
async function redisCpuUsec(redis: Redis): Promise<number> {
  const cpu = await redis.info("cpu");
  const seconds = (field: string) => Number(new RegExp(`^${field}:([\\d.]+)`, "m").exec(cpu)?.[1] ?? Number.NaN);
  return (seconds("used_cpu_user") + seconds("used_cpu_sys")) * 1e6;
}

/** The four figures of `tree`, in this process, each on a private redis-server of its own. */
async function measureTree(tree: string, s: Sizes): Promise<Sample> {
  const at = (file: string) => join(tree, file);
  const { startPrivate }: typeof import("../src/platforms/node/find-redis.js") = await import(
    at("src/platforms/node/find-redis.ts")
  );
  const { tickqSystem }: typeof import("./systems/tickq.js") = await import(at("bench/systems/tickq.ts"));
  const { commandsProcessed }: typeof import("./wire.js") = await import(at("bench/wire.ts"));
  const realistic: typeof import("./realistic.js") = await import(at("bench/realistic.ts"));
  const { durations, limitOf }: typeof import("./jobs.js") = await import(at("bench/jobs.ts"));
  const { measureFlow }: typeof import("./flow.js") = await import(at("bench/flow.ts"));
  const { measureWorkflows }: typeof import("./workflows.js") = await import(at("bench/workflows.ts"));
  const sample: Sample = {};
  const onPrivate = async (bench: (url: string) => Promise<void>) => {
    const server = await startPrivate();
    try {
      await bench(server.url);
    } finally {
      await server.stop();
    }
  };

  await onPrivate(async (url) => {
    const probe = new Redis(url);
    const system = await tickqSystem(url, "compare-drain");
    try {
      const warm = Math.ceil(s.jobs / 10);
      await system.enqueue(warm);
      await system.drain(warm, { batch: 100, concurrency: 100 });
      await system.enqueue(s.jobs);
      const before = await commandsProcessed(probe);
      const redisBefore = await redisCpuUsec(probe);
      const nodeBefore = process.cpuUsage();
      const t = performance.now();
      await system.drain(s.jobs, { batch: 100, concurrency: 100 });
      sample["drain jobs/s"] = (s.jobs * 1000) / (performance.now() - t);
      const node = process.cpuUsage(nodeBefore);
      sample["drain Node CPU µs/job"] = (node.user + node.system) / s.jobs;
      sample["drain Redis CPU µs/job"] = ((await redisCpuUsec(probe)) - redisBefore) / s.jobs;
      // less the INFOs that read the first count and the two CPU figures
      sample["drain Redis cmds/job"] = ((await commandsProcessed(probe)) - before - 3) / s.jobs;
    } finally {
      await system.close();
      probe.disconnect();
    }
  });

  if (s.realisticJobs > 0) {
    await onPrivate(async (url) => {
      const jobs = durations(s.realisticJobs, s.seed);
      const setup = {
        label: "tickq batch 100",
        factory: tickqSystem,
        drain: { batch: 100, concurrency: realistic.CONCURRENCY },
      };
      const row = await realistic.measureRealistic(setup, url, jobs, 1);
      sample["realistic jobs/s"] = row.rates[0]!;
      sample["realistic slot use %"] = (row.rates[0]! / limitOf(jobs, realistic.CONCURRENCY)) * 100;
      sample["realistic round trips/job"] = row.roundTripsPerJob ?? Number.NaN;
    });
  }

  if (s.flowJobs > 0) {
    // measureFlow starts its own private redis-server.
    const f = await measureFlow({
      jobs: s.flowJobs,
      duplicates: s.flowDuplicates,
      plain: s.flowPlain,
      runs: 1,
      batch: 100,
    });
    sample["flow (a) plain jobs/s"] = median(f.plain);
    sample["flow (a) while-executing jobs/s"] = median(f.exclusive);
    // (b) runs twice a round: the median as the flow table takes it (of two, the higher)
    sample["flow (b) alone jobs/s"] = median(f.alone);
    sample["flow (b) enqueued jobs/s"] = median(f.enqueued);
    sample["flow (b) cold jobs/s"] = median(f.cold);
    sample["flow (b) parked jobs/s"] = median(f.parked);
    sample["flow (a) while-executing Redis cmds/job"] = f.commands.exclusive ?? Number.NaN;
    for (const [label, scenario] of SCENARIOS) sample[`flow ${label} Redis CPU µs/job`] = median(f.cpuUs[scenario]);
  }

  if (s.workflowRuns > 0) {
    await onPrivate(async (url) => {
      await measureWorkflows(url, "compare-warm:", Math.max(1, Math.ceil(s.workflowRuns / 10)), s.workflowSteps);
      const wf = await measureWorkflows(url, "compare-wf:", s.workflowRuns, s.workflowSteps);
      sample["workflow steps/s"] = wf.perSecond;
      sample["workflow round trips/step"] = wf.tripsPerUnit;
    });
  }
  return sample;
}

const sizeFlags = (s: Sizes) => [
  "--jobs",
  String(s.jobs),
  "--realistic-jobs",
  String(s.realisticJobs),
  "--seed",
  String(s.seed),
  "--flow-jobs",
  String(s.flowJobs),
  "--flow-duplicates",
  String(s.flowDuplicates),
  "--flow-plain",
  String(s.flowPlain),
  "--workflow-runs",
  String(s.workflowRuns),
  "--workflow-steps",
  String(s.workflowSteps),
];

/** measureTree in a fresh process, so no tree's JIT state or module state reaches another's. */
function measureInChild(tree: string, s: Sizes): Promise<Sample> {
  const args = ["--child", tree, ...sizeFlags(s)];
  return sampleInChild<Sample>(fileURLToPath(import.meta.url), args, `the figures of ${tree}`);
}

/** Builds the ref's Lua in its worktree (a merge commit may hold a stale generated index) and exposes measureWorkflows. */
function prepare(dir: string, ref: string): string[] {
  const notes: string[] = [];
  const build = join(dir, "scripts/build-lua.mjs");
  if (existsSync(build)) {
    execFileSync("node", [build], { cwd: dir, stdio: "ignore" });
    const changed = execFileSync("git", ["-C", dir, "status", "--porcelain", "src/lua"]).toString().trim();
    if (changed !== "")
      notes.push(`${ref}: its committed src/lua/index.ts was not current; rebuilt from its .lua files`);
  }
  const workflows = join(dir, "bench/workflows.ts");
  if (
    !/export (async )?function measureWorkflows|export \{[^}]*\bmeasureWorkflows\b/.test(
      readFileSync(workflows, "utf8"),
    )
  ) {
    appendFileSync(workflows, "\nexport { measureWorkflows };\n");
    notes.push(`${ref}: bench/workflows.ts given \`export { measureWorkflows }\``);
  }
  return notes;
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

export async function runCompareTrees(refs: string[], rounds: number, sizes: Sizes): Promise<void> {
  const repo = fileURLToPath(new URL("..", import.meta.url));
  const trees = refs.map((ref) => ({ ref, ...worktreeOf(repo, ref) }));
  const samples = new Map(trees.map((t) => [t, [] as Sample[]]));
  try {
    const notes = trees.flatMap((t) => prepare(t.dir, t.ref));
    const commits = trees.map(
      (t) => `${t.ref} = ${execFileSync("git", ["-C", t.dir, "rev-parse", "--short", "HEAD"]).toString().trim()}`,
    );
    console.log(
      `Trees compared: ${commits.join(", ")}; ${rounds} rounds, a fresh process a tree a round, order reversed every other round`,
    );
    console.log(
      `drain ${sizes.jobs} no-op jobs (batch 100); realistic ${sizes.realisticJobs} jobs of 0–100 ms (seed ${sizes.seed}), concurrency 50; ` +
        `flow ${sizes.flowJobs} jobs, ${sizes.flowDuplicates} duplicates, ${sizes.flowPlain} plain; workflows ${sizes.workflowRuns} runs × ${sizes.workflowSteps} steps`,
    );
    for (const note of notes) console.log(`  note: ${note}`);
    console.log(`load average at start (1, 5, 15 min): ${load()}`);
    for (let round = 0; round < rounds; round++) {
      for (const tree of round % 2 === 0 ? trees : [...trees].reverse()) {
        const t = performance.now();
        const sample = await measureInChild(tree.dir, sizes);
        samples.get(tree)!.push(sample);
        const shown = FIGURES.filter(([name]) => name in sample).map(
          ([name, d]) => `${name} ${sample[name]!.toFixed(d)}`,
        );
        console.log(
          `  round ${round + 1} ${tree.ref} (${((performance.now() - t) / 1000).toFixed(0)} s, load ${load()}): ${shown.join("; ")}`,
        );
      }
    }
    console.log(`load average at end (1, 5, 15 min): ${load()}`);
    const [base, ...others] = trees;
    const of = (t: (typeof trees)[number], name: string) => samples.get(t)!.map((s) => s[name]!);
    for (const other of others) {
      console.table(
        FIGURES.filter(([name]) => name in samples.get(base!)![0]!).map(([name, d]) => {
          const a = of(base!, name);
          const b = of(other, name);
          const perRound = b.map((x, i) => x / a[i]!);
          return {
            figure: name,
            [`${base!.ref} median (min–max)`]: `${median(a).toFixed(d)} (${spread(a, d)})`,
            [`${other.ref} median (min–max)`]: `${median(b).toFixed(d)} (${spread(b, d)})`,
            "B/A medians": (median(b) / median(a)).toFixed(3),
            "B/A by round, median (min–max)": `${median(perRound).toFixed(3)} (${spread(perRound, 3)})`,
          };
        }),
      );
    }
  } finally {
    for (const t of trees) t.remove();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      ref: { type: "string", multiple: true, default: [] },
      rounds: { type: "string", default: "5" },
      jobs: { type: "string", default: "20000" },
      "realistic-jobs": { type: "string", default: "4000" },
      seed: { type: "string", default: "1" },
      "flow-jobs": { type: "string", default: "20000" },
      "flow-duplicates": { type: "string", default: "10000" },
      "flow-plain": { type: "string", default: "1000" },
      "workflow-runs": { type: "string", default: "1000" },
      "workflow-steps": { type: "string", default: "10" },
      child: { type: "string" },
    },
  });
  const sizes: Sizes = {
    jobs: Number(values.jobs),
    realisticJobs: Number(values["realistic-jobs"]),
    seed: Number(values.seed),
    flowJobs: Number(values["flow-jobs"]),
    flowDuplicates: Number(values["flow-duplicates"]),
    flowPlain: Number(values["flow-plain"]),
    workflowRuns: Number(values["workflow-runs"]),
    workflowSteps: Number(values["workflow-steps"]),
  };
  if (values.child !== undefined) {
    console.log(JSON.stringify(await measureTree(values.child, sizes)));
  } else {
    if (values.ref.length < 2) throw new Error("compare-trees: name two refs, --ref A --ref B");
    await runCompareTrees(values.ref, Number(values.rounds), sizes);
  }
  process.exit(0);
}
