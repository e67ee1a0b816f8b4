// The tick process's instructions a workflow step (issue 46: workflow steps/s without persistence),
// counted by valgrind's callgrind: timed drains move by ±30 % with the machine's other tenants, an
// instruction count by a percent or two, so two trees compare where bench/workflow-rate.ts cannot.
// Each tree drains in its own process under callgrind: RUNS runs of STEPS no-op steps (as
// workflow-rate.ts: startBulk, ticks of batch 100 back to back) on a private redis-server run
// natively, a tenth of the runs first (not counted), then the runs, counted from the hook before the
// drain to the hook after (not the start of the runs): the main thread's count (the tick's JS, its
// promises, the socket) and all threads' (V8's optimizing compiler and the collector's helpers, which
// move by ±30 % between runs of the same code). With `--redis`, the Redis side instead: a
// redis-server under callgrind, instrumented around the same drain (the scripts' Lua and commands).
// `--keep` (with --redis): leaves the server's callgrind output for callgrind_annotate.
// `--repeat N`: each tree N times, the trees' order reversed every other time, then the median.
// Needs valgrind (Debian's package).
//   npx tsx bench/workflow-instructions.ts [--ref main] [--runs 200] [--steps 10] [--repeat 1] [--redis]
import { callgrindRedis } from "./callgrind.js";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { worktreeOf } from "./ref-worktree.js";
import { noopWorkflow } from "./noop-workflow.js";

const { values } = parseArgs({
  options: {
    ref: { type: "string" },
    runs: { type: "string", default: "200" },
    steps: { type: "string", default: "10" },
    repeat: { type: "string", default: "1" },
    redis: { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
    child: { type: "boolean", default: false },
    url: { type: "string" },
    "redis-pid": { type: "string" },
  },
});
const runs = Number(values.runs);
const steps = Number(values.steps);

if (values.child) {
  await drainCounted();
  process.exit(0);
} else await countAll();

/** In the child (under callgrind, or beside a Redis under it): one warm-up drain, then the counted one. */
async function drainCounted(): Promise<void> {
  const { createTickq } = await import("../src/index.js");
  const { ioredisAdapter } = await import("../src/redis/ioredis.js");
  const { startPrivate } = await import("../src/platforms/node/find-redis.js");
  const { Redis } = await import("ioredis");
  const own = values.url === undefined ? await startPrivate() : undefined;
  const redis = new Redis(values.url ?? own!.url);
  const toggle = (on: boolean) => {
    const pid = values["redis-pid"] ?? String(process.pid);
    execFileSync("callgrind_control", ["-i", on ? "on" : "off", pid], { stdio: "ignore" });
  };
  try {
    const drain = async (label: string, n: number, counted: boolean) => {
      let completed = 0;
      const tq = createTickq({
        redis: ioredisAdapter(redis),
        prefix: `wf-ins:${label}:`,
        jobs: {},
        workflows: {
          noop: noopWorkflow(steps, () => completed++),
        },
      });
      const input = Array.from({ length: n }, () => ({ name: "noop" as const, input: null }));
      for (let i = 0; i < n; i += 1_000) await tq.workflows.startBulk(input.slice(i, i + 1_000));
      if (counted) toggle(true);
      let trips = 0;
      for (let ticks = 0; ; ticks++) {
        const report = await tq.tick({ budgetMs: 600_000, batch: 100 });
        trips += report.roundTrips;
        if (!report.more && completed >= n) break;
        if (ticks > 100_000) throw new Error(`only ${completed} of ${n} runs completed`);
      }
      if (counted) toggle(false);
      return trips / (n * steps);
    };
    await drain("warm", Math.max(10, Math.ceil(runs / 10)), false);
    const requests = await drain("counted", runs, true);
    // Read by the parent beside callgrind's count: more requests a step would mean more work a step.
    console.error(`requests a step: ${requests.toFixed(4)}`);
  } finally {
    redis.disconnect();
    await own?.stop();
  }
}

/** Counts each tree in its own process; prints instructions a step. */
async function countAll(): Promise<void> {
  const here = resolve(fileURLToPath(import.meta.url), "../..");
  const trees: { name: string; dir: string }[] = [];
  const ref = values.ref === undefined ? undefined : worktreeOf(here, values.ref);
  if (ref !== undefined) {
    // The ref may predate this bench: run this one against its src/.
    execFileSync("cp", [join(here, "bench/workflow-instructions.ts"), join(ref.dir, "bench/")]);
    if (!existsSync(join(ref.dir, "bench/callgrind.ts")))
      execFileSync("cp", [join(here, "bench/callgrind.ts"), join(ref.dir, "bench/")]);
    trees.push({ name: values.ref!, dir: ref.dir });
  }
  trees.push({ name: "this tree", dir: here });
  try {
    const side = values.redis ? "Redis'" : "the tick process's (main thread)";
    console.log(
      `${side} instructions a workflow step (callgrind): ${runs} runs × ${steps} no-op steps, ticks of batch 100`,
    );
    const repeat = Number(values.repeat);
    const counts = new Map(trees.map((tree) => [tree, [] as number[]]));
    for (let r = 0; r < repeat; r++) {
      for (const tree of r % 2 === 0 ? trees : [...trees].reverse()) {
        const { perStep, allThreads, requests } = values.redis
          ? await countRedis(tree.dir)
          : await countClient(tree.dir);
        counts.get(tree)!.push(perStep);
        const all = allThreads === undefined ? "" : ` (all threads ${allThreads.toLocaleString("en")})`;
        console.log(
          `  ${tree.name.padEnd(10)} ${perStep.toLocaleString("en")} instructions a step${all}, ${requests} requests a step`,
        );
      }
    }
    for (const [tree, list] of counts) {
      const sorted = [...list].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)]!;
      console.log(
        `  ${tree.name.padEnd(10)} median ${median.toLocaleString("en")} (${sorted[0]!.toLocaleString("en")}–${sorted.at(-1)!.toLocaleString("en")}) over ${repeat}`,
      );
    }
  } finally {
    ref?.remove();
  }
}

function childArgs(): string[] {
  return ["bench/workflow-instructions.ts", "--child", "--runs", String(runs), "--steps", String(steps)];
}

/** Instructions a step: the main thread's (the tick's JS, its promises, the socket), and all threads' (V8's compiler, the collector's helpers). */
async function countClient(
  dir: string,
): Promise<{ perStep: number; allThreads: number; requests: string | undefined }> {
  const out = join(tmpdir(), `wf-ins-node-${process.pid}-${Date.now()}.out`);
  const argv = ["--tool=callgrind", "--instr-atstart=no", "--separate-threads=yes", `--callgrind-out-file=${out}`];
  argv.push(process.execPath, "--import", "tsx", ...childArgs());
  const child = spawnSync("valgrind", argv, { cwd: dir, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  try {
    if (child.status !== 0)
      throw new Error(`workflow drain in ${dir}: exit ${child.status}\n${child.stderr.slice(-2000)}`);
    // One file a thread, "-01" the main one.
    const files = readdirSync(tmpdir()).filter((f) => f.startsWith(basename(out)));
    const totalOf = (file: string) => {
      const text = readFileSync(join(tmpdir(), file), "utf8");
      return Number(/^totals: (\d+)/m.exec(text)?.[1] ?? /^summary: (\d+)/m.exec(text)?.[1] ?? 0);
    };
    const main = files.find((f) => f.endsWith("-01"));
    if (main === undefined) throw new Error(`no main thread's counts in ${tmpdir()} (${out})`);
    const all = files.reduce((sum, f) => sum + totalOf(f), 0);
    const requests = /requests a step: ([\d.]+)/.exec(child.stderr)?.[1];
    const total = runs * steps;
    return { perStep: Math.round(totalOf(main) / total), allThreads: Math.round(all / total), requests };
  } finally {
    for (const f of readdirSync(tmpdir())) if (f.startsWith(basename(out))) rmSync(join(tmpdir(), f), { force: true });
  }
}

async function countRedis(
  dir: string,
): Promise<{ perStep: number; allThreads?: number; requests: string | undefined }> {
  const { freePort } = await import("../src/platforms/node/find-redis.js");
  const out = join(tmpdir(), `wf-ins-redis-${process.pid}-${Date.now()}.out`);
  const { server, url } = await callgrindRedis(await freePort(), out);
  try {
    const args = [...childArgs(), "--url", url, "--redis-pid", String(server.pid)];
    const child = spawnSync(process.execPath, ["--import", "tsx", ...args], { cwd: dir, encoding: "utf8" });
    if (child.status !== 0) throw new Error(`workflow drain in ${dir}: exit ${child.status}\n${child.stderr}`);
    const stderr = child.stderr;
    const requests = /requests a step: ([\d.]+)/.exec(stderr)?.[1];
    // The counts reach the file once the server exits.
    const exited = new Promise((done) => server.once("exit", done));
    server.kill("SIGTERM");
    await exited;
    const text = readFileSync(out, "utf8");
    const total = /^totals: (\d+)/m.exec(text)?.[1] ?? /^summary: (\d+)/m.exec(text)?.[1];
    if (total === undefined) throw new Error(`no total in ${out}`);
    return { perStep: Math.round(Number(total) / (runs * steps)), requests };
  } finally {
    if (server.exitCode === null) server.kill("SIGKILL");
    if (values.keep) console.log(`  callgrind output kept: ${out}`);
    else rmSync(out, { force: true });
  }
}
