// What an ordered execution costs, against a git ref (issue 46: ordered ids at the cost of plain
// jobs). Each round runs, in a fresh process per tree (this one, or the ref checked out in a
// temporary worktree: bench/ref-worktree.ts), on one private Redis, trees alternating round by round
// so the load of other processes moves both alike:
//   plain     N no-op jobs drained by ticks of batch 100 (the yardstick)
//   one each  N payloads over `ids` ids in waves of one payload per id, each wave enqueued with one
//             enqueueOrderedBulk and drained before the next: every execution carries one payload
//   merged    N payloads over `ids` ids enqueued first, then drained: each id runs once with N/ids
// Rates are per wall second of the drain (and, "with enqueue", of enqueue and drain); Redis
// commands from INFO commandstats (scripts' own commands included), enqueue included; CPU of the
// process and of Redis a job. Each process runs every scenario once unmeasured first.
//   npx tsx bench/ordered-cost.ts --ref main --payloads 5000 --ids 100 --rounds 5
import { sampleInChild } from "./child-sample.js";
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { worktreeOf } from "./ref-worktree.js";
import { commandsBetween, redisUsage } from "./wire.js";

interface Row {
  /** Executions (plain: jobs) a second of the drain. */
  rate: number;
  /** Executions a second of enqueue and drain together. */
  rateWithEnqueue: number;
  /** Payloads a second of the drain. */
  payloadRate: number;
  nodeUsec: number;
  redisUsec: number;
  /** Redis commands an execution, enqueue included. */
  commands: number;
  /** The same, command by command. */
  byCommand: Record<string, number>;
}
type Sample = Record<"plain" | "oneEach" | "merged", Row>;

/** Every scenario once, in this process: `tree`'s src/ against the Redis at `url`. */
async function runOnce(tree: string, url: string, n: number, ids: number, measured: boolean): Promise<Sample> {
  const { createTickq } = await import(join(tree, "src/index.ts"));
  const { ioredisAdapter } = await import(join(tree, "src/redis/ioredis.ts"));
  const redis = new Redis(url);
  const probe = new Redis(url);
  let executed = 0;
  let payloads = 0;
  const tq = createTickq({
    redis: ioredisAdapter(redis),
    prefix: `ordered-cost:${measured}:`,
    jobs: { noop: (_args: [number]) => {} },
    ordered: { index: { perform: (_id: string, p: unknown[]) => void ((executed += 1), (payloads += p.length)) } },
  });
  const tick = () => tq.tick({ batch: 100, concurrency: 100, budgetMs: 60_000 });
  const wave = (w: number, count = ids) =>
    Array.from({ length: count }, (_, i) => ({ name: "index", id: `id-${i}`, payload: { w, i } }));
  const measure = async (work: (timed: (f: () => Promise<void>) => Promise<void>) => Promise<number>) => {
    executed = payloads = 0;
    let drainMs = 0;
    const before = await redisUsage(probe);
    const node = process.cpuUsage();
    const start = performance.now();
    const count = await work(async (f) => {
      const t = performance.now();
      await f();
      drainMs += performance.now() - t;
    });
    const wall = performance.now() - start;
    const cpu = process.cpuUsage(node);
    const after = await redisUsage(probe);
    const byCommand: Record<string, number> = {};
    for (const [name, calls] of Object.entries(commandsBetween(before, after))) byCommand[name] = calls / count;
    return {
      rate: count / (drainMs / 1000),
      rateWithEnqueue: count / (wall / 1000),
      payloadRate: payloads / (drainMs / 1000),
      nodeUsec: (cpu.user + cpu.system) / count,
      redisUsec: (after.cpuUsec - before.cpuUsec) / count,
      commands: Object.values(byCommand).reduce((a, b) => a + b, 0),
      byCommand,
    };
  };
  const drainTo = async (until: () => boolean) => {
    while (!until()) {
      const report = await tick();
      if (report.fetched === 0 && !report.more) throw new Error("the drain stopped short");
    }
  };
  try {
    const plain = await measure(async (timed) => {
      for (let i = 0; i < n; i += 1_000)
        await tq.enqueueBulk(
          Array.from({ length: Math.min(1_000, n - i) }, (_, k) => ({ name: "noop", args: [i + k] })),
        );
      let done = 0;
      await timed(async () => {
        while (done < n) {
          const report = await tick();
          done += report.succeeded;
          if (report.fetched === 0) throw new Error(`drained only ${done} of ${n}`);
        }
      });
      return n;
    });
    const waves = Math.ceil(n / ids);
    const oneEach = await measure(async (timed) => {
      for (let w = 0; w < waves; w++) {
        await tq.enqueueOrderedBulk(wave(w));
        await timed(() => drainTo(() => executed >= (w + 1) * ids));
      }
      return executed;
    });
    const merged = await measure(async (timed) => {
      for (let b = 0; b < waves; b += 10)
        await tq.enqueueOrderedBulk(Array.from({ length: Math.min(10, waves - b) }, (_, j) => wave(b + j)).flat());
      await timed(() => drainTo(() => payloads >= waves * ids));
      return executed;
    });
    return { plain, oneEach, merged };
  } finally {
    await probe.flushdb(); // a private Redis (startPrivate), this bench's alone
    redis.disconnect();
    probe.disconnect();
  }
}

function inChild(tree: string, url: string, n: number, ids: number): Promise<Sample> {
  const args = ["--child", tree, "--url", url];
  args.push("--payloads", String(n), "--ids", String(ids));
  return sampleInChild<Sample>(fileURLToPath(import.meta.url), args, `the run of ${tree}`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const range = (xs: number[], digits: number) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

export async function runOrderedCostBench(o: { refs: string[]; payloads: number; ids: number; rounds: number }) {
  const repo = fileURLToPath(new URL("..", import.meta.url));
  const { startPrivate } = await import("../src/platforms/node/find-redis.js");
  const server = await startPrivate();
  const worktrees = o.refs.map((ref) => ({ ref, ...worktreeOf(repo, ref) }));
  const trees = [...worktrees.map((w) => ({ label: w.ref, dir: w.dir })), { label: "this tree", dir: repo }];
  const samples = new Map(trees.map((t) => [t, [] as Sample[]]));
  try {
    console.log(
      `Ordered cost: ${o.payloads} payloads over ${o.ids} ids (one each, merged) and ${o.payloads} plain no-op jobs, ` +
        `ticks of batch 100, ${o.rounds} rounds, a fresh process per tree and round, trees alternating; load average at start ${load()}`,
    );
    for (let round = 0; round < o.rounds; round++) {
      for (const tree of round % 2 === 0 ? trees : [...trees].reverse()) {
        const s = await inChild(tree.dir, server.url, o.payloads, o.ids);
        samples.get(tree)!.push(s);
        console.log(
          `  round ${round + 1} ${tree.label}: plain ${Math.round(s.plain.rate)}/s, one each ${Math.round(s.oneEach.rate)}/s ` +
            `(${s.oneEach.commands.toFixed(2)} cmds), merged ${Math.round(s.merged.payloadRate)} payloads/s`,
        );
      }
    }
    console.log(`load average at end ${load()}`);
    type Tree = (typeof trees)[number];
    const of = (t: Tree, pick: (s: Sample) => number) => samples.get(t)!.map(pick);
    const cell = (t: Tree, pick: (s: Sample) => number, digits = 0) =>
      `${median(of(t, pick)).toFixed(digits)} (${range(of(t, pick), digits)})`;
    console.table(
      trees.map((t) => ({
        tree: t.label,
        "plain jobs/s": cell(t, (s) => s.plain.rate),
        "one each: executions/s": cell(t, (s) => s.oneEach.rate),
        "with enqueue": cell(t, (s) => s.oneEach.rateWithEnqueue),
        "/ plain": median(of(t, (s) => s.oneEach.rate / s.plain.rate)).toFixed(2),
        "Redis cmds/execution, enqueue included": median(of(t, (s) => s.oneEach.commands)).toFixed(2),
        "Node µs": cell(t, (s) => s.oneEach.nodeUsec, 1),
        "Redis µs": cell(t, (s) => s.oneEach.redisUsec, 1),
        "merged: payloads/s": cell(t, (s) => s.merged.payloadRate),
        "plain cmds/job": median(of(t, (s) => s.plain.commands)).toFixed(2),
      })),
    );
    const base = trees[0]!;
    for (const t of trees.slice(1)) {
      const change = (pick: (s: Sample) => number) =>
        `${((median(of(t, pick)) / median(of(base, pick)) - 1) * 100).toFixed(1)} %`;
      console.log(
        `${t.label} vs ${base.label}, one each: executions/s ${change((s) => s.oneEach.rate)}, with enqueue ` +
          `${change((s) => s.oneEach.rateWithEnqueue)}, Node CPU ${change((s) => s.oneEach.nodeUsec)}, Redis CPU ` +
          `${change((s) => s.oneEach.redisUsec)}; merged payloads/s ${change((s) => s.merged.payloadRate)}`,
      );
    }
    // Commands are counts, the same every round: the first round's, command by command.
    const names = [...new Set(trees.flatMap((t) => Object.keys(samples.get(t)![0]!.oneEach.byCommand)))];
    const calls = (t: Tree, name: string) => samples.get(t)![0]!.oneEach.byCommand[name] ?? 0;
    const split = names
      .filter((name) => trees.some((t) => calls(t, name) >= 0.005))
      .sort((a, b) => calls(base, b) - calls(base, a))
      .map((name) => ({
        command: name,
        ...Object.fromEntries(trees.map((t) => [t.label, calls(t, name).toFixed(3)])),
      }));
    console.log("one each, Redis commands an execution (enqueue included), command by command:");
    console.table(split);
  } finally {
    for (const w of worktrees) w.remove();
    await server.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      ref: { type: "string", multiple: true, default: ["main"] },
      payloads: { type: "string", default: "5000" },
      ids: { type: "string", default: "100" },
      rounds: { type: "string", default: "5" },
      child: { type: "string" },
      url: { type: "string" },
    },
  });
  if (values.child !== undefined) {
    if (!existsSync(join(values.child, "src/index.ts"))) throw new Error(`${values.child} holds no src/index.ts`);
    const n = Number(values.payloads);
    const ids = Number(values.ids);
    await runOnce(values.child, values.url!, n, ids, false); // warm-up: the JIT, the scripts loaded
    console.log(JSON.stringify(await runOnce(values.child, values.url!, n, ids, true)));
  } else {
    await runOrderedCostBench({
      refs: values.ref,
      payloads: Number(values.payloads),
      ids: Number(values.ids),
      rounds: Number(values.rounds),
    });
  }
  process.exit(0);
}
