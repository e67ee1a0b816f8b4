// npx tsx bench/ordered-instructions.ts [--payloads 5000 --ids 100 --repeat 3 --ref REV --warm WAVES]
// The tick process's instructions an ordered execution, counted by valgrind's callgrind: the
// "one each" shape of bench/ordered-cost.ts and of the peers bench's ordered row (payloads in waves
// of one per id, each wave enqueued with one enqueueOrderedBulk and drained by ticks of batch 100
// before the next), enqueue and drain both counted, from the hook before the first wave to the hook
// after the last (not the start, the scripts' load nor the warm-up waves). Redis runs natively. On
// a machine whose other tenants move timed rates by ±20 % a run, a count is the same for the same
// code and inputs: two trees compare to a percent or two where timed drains cannot. Under callgrind
// the client runs ~100 times slower, so Redis answers at once: this counts the client's work, not
// how it overlaps Redis'. `--ref REV` counts that tree too (a temporary worktree, this
// node_modules linked); `--repeat N` runs each tree N times, trees alternating, and prints medians.
// Each count comes in all and for the main thread alone (V8 compiles on helper threads: a share of a
// short window that moves with when TurboFan compiles); `--warm N` runs N uncounted waves first
// (default half the counted ones, at least 10).
// Needs valgrind (Debian's package).
import { callgrindCount } from "./callgrind.js";
import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { worktreeOf } from "./ref-worktree.js";

const { values } = parseArgs({
  options: {
    payloads: { type: "string", default: "5000" },
    ids: { type: "string", default: "100" },
    repeat: { type: "string", default: "1" },
    warm: { type: "string" },
    ref: { type: "string" },
    child: { type: "string" },
  },
});
const payloads = Number(values.payloads);
const ids = Number(values.ids);

if (values.child !== undefined) {
  await drainCounted(values.child);
  process.exit(0);
} else await countAll();

/** In the child, under callgrind: warm-up waves uncounted, then every wave counted between two toggles. */
async function drainCounted(tree: string): Promise<void> {
  const { Redis } = await import("ioredis");
  const { startPrivate } = await import(join(tree, "src/platforms/node/find-redis.ts"));
  const { createTickq } = await import(join(tree, "src/index.ts"));
  const { ioredisAdapter } = await import(join(tree, "src/redis/ioredis.ts"));
  const toggle = (on: boolean) => execFileSync("callgrind_control", ["-i", on ? "on" : "off", String(process.pid)]);
  const server = await startPrivate();
  const redis = new Redis(server.url);
  let executed = 0;
  const tq = createTickq({
    redis: ioredisAdapter(redis),
    prefix: "oi:",
    jobs: {},
    ordered: { index: { perform: (_id: string, _payloads: unknown[]) => void (executed += 1) } },
  });
  const wave = (w: number) =>
    Array.from({ length: ids }, (_, i) => ({ name: "index", id: `id-${i}`, payload: { w, i } }));
  const waves = async (from: number, count: number) => {
    for (let w = from; w < from + count; w++) {
      await tq.enqueueOrderedBulk(wave(w));
      const until = executed + ids;
      while (executed < until) {
        const report = await tq.tick({ batch: 100, concurrency: 100, budgetMs: 600_000 });
        if (report.fetched === 0 && !report.more) throw new Error("the drain stopped short");
      }
    }
  };
  try {
    const warm = values.warm === undefined ? Math.max(10, Math.ceil(payloads / ids / 2)) : Number(values.warm);
    await waves(0, warm);
    const counted = Math.ceil(payloads / ids);
    toggle(true);
    await waves(warm, counted);
    toggle(false);
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

/** Runs each tree in its own process under callgrind; prints instructions an execution. */
async function countAll(): Promise<void> {
  const here = resolve(fileURLToPath(import.meta.url), "../..");
  const trees: { name: string; dir: string }[] = [];
  const ref = values.ref === undefined ? undefined : worktreeOf(here, values.ref);
  if (ref !== undefined) trees.push({ name: values.ref!, dir: ref.dir });
  trees.push({ name: "this tree", dir: here });
  const executions = Math.ceil(payloads / ids) * ids;
  try {
    console.log(
      `the tick process's instructions an ordered execution (callgrind): ${executions} payloads over ${ids} ids, ` +
        "one payload an execution, enqueue and drain (ticks of batch 100)",
    );
    const repeat = Number(values.repeat);
    const counts = new Map(trees.map((tree) => [tree, { all: [] as number[], main: [] as number[] }]));
    for (let r = 0; r < repeat; r++) {
      for (const tree of r % 2 === 0 ? trees : [...trees].reverse()) {
        const { all, main } = await count(tree.dir, here, executions);
        counts.get(tree)!.all.push(all);
        counts.get(tree)!.main.push(main);
        console.log(
          `  ${tree.name.padEnd(10)} ${all.toLocaleString("en")} instructions an execution, ${main.toLocaleString("en")} of them on the main thread`,
        );
      }
    }
    // The main thread's alone too: the compiler's and GC's helper threads are a share of the window
    // that moves with when TurboFan compiles, and a longer warm-up (--warm) leaves less of it.
    for (const which of ["all", "main"] as const) {
      const medians = new Map<string, number>();
      for (const [tree, lists] of counts) {
        const sorted = [...lists[which]].sort((a, b) => a - b);
        const median = sorted[Math.floor(sorted.length / 2)]!;
        medians.set(tree.name, median);
        console.log(
          `  ${which === "all" ? "all threads" : "main thread"}: ${tree.name.padEnd(10)} median ${median.toLocaleString("en")} (${sorted[0]!.toLocaleString("en")}–${sorted.at(-1)!.toLocaleString("en")}) over ${repeat}`,
        );
      }
      if (ref !== undefined)
        console.log(
          `  ${which === "all" ? "all threads" : "main thread"}: this tree vs ${values.ref}: ${((medians.get("this tree")! / medians.get(values.ref!)! - 1) * 100).toFixed(1)} %`,
        );
    }
  } finally {
    ref?.remove();
  }
}

/** One run of `tree` (this bench's own file drives it, so an older ref needs no copy of it). */
async function count(tree: string, here: string, executions: number): Promise<{ all: number; main: number }> {
  const node = [process.execPath, "--import", "tsx", join(here, "bench/ordered-instructions.ts"), "--child", tree];
  node.push("--payloads", String(payloads), "--ids", String(ids));
  if (values.warm !== undefined) node.push("--warm", values.warm);
  const { instructions, mainThread } = await callgrindCount(node, tree, tree, { mainThread: true });
  return { all: Math.round(instructions / executions), main: Math.round(mainThread! / executions) };
}
