// Redis' instructions a tick with nothing to do costs (issue 46: the fixed cost every tick of every
// user pays, a cron tick each minute and a kicked tick per enqueue burst), counted by valgrind's
// callgrind on the redis-server. The prefix declares one plain job name and, unless `--plain-only`,
// one ordered name; no job is ever enqueued, so each tick is begin then finish (tq.tick, batch 100),
// every command of their fixed work (lease, registration, heartbeat, resurrector, the delayed and
// recurring passes, the empty fetch, the recent-ticks record) and none of a job's.
// For each tree (this one, and `--ref REV` checked out beside it): a redis-server under callgrind
// (instrumentation off), a fresh tsx process of that tree runs `--warmup` ticks, then `--ticks`
// ticks with instrumentation on; the figure is the server's instructions per measured tick.
// An instruction count is the same for the same scripts and calls, so two trees compare to a
// percent whatever the machine's load. `--repeat N`: each tree N times, the median of each.
// `--keep`: leaves each server's callgrind output in the temporary folder (callgrind_annotate reads it).
// Needs valgrind (Debian's package).
//   npx tsx bench/tick-fixed-instructions.ts [--ref main] [--ticks 100] [--warmup 20] [--plain-only] [--repeat 1] [--keep]
import { callgrindRedis } from "./callgrind.js";
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { sampleInChild } from "./child-sample.js";
import { freePort } from "../src/platforms/node/find-redis.js";
import { worktreeOf } from "./ref-worktree.js";

const { values } = parseArgs({
  options: {
    ref: { type: "string" },
    ticks: { type: "string", default: "100" },
    warmup: { type: "string", default: "20" },
    "plain-only": { type: "boolean", default: false },
    repeat: { type: "string", default: "1" },
    keep: { type: "boolean", default: false },
    child: { type: "boolean", default: false },
    url: { type: "string" },
    pid: { type: "string" },
  },
});
const ticks = Number(values.ticks);
const warmup = Number(values.warmup);
const ordered = !values["plain-only"];

/** In the tree's own process: the warm-up ticks, then the measured ones with instrumentation on. */
async function ticksCounted(url: string, pid: string): Promise<{ ticks: number }> {
  const { ioredisAdapter } = await import("../src/redis/ioredis.js");
  const { createTickq } = await import("../src/index.js");
  const client = new Redis(url);
  const tq = createTickq({
    redis: ioredisAdapter(client),
    prefix: "tfi:",
    jobs: { noop: () => {} },
    ...(ordered ? { ordered: { index: { perform: () => {} } } } : {}),
  });
  const instrument = (on: boolean) =>
    execFileSync("callgrind_control", ["-i", on ? "on" : "off", pid], { stdio: "ignore" });
  for (let i = 0; i < warmup; i++) await tq.tick({ batch: 100 });
  instrument(true);
  for (let i = 0; i < ticks; i++) await tq.tick({ batch: 100 });
  instrument(false);
  client.disconnect();
  return { ticks };
}

/** Instructions a measured tick cost the server while `tree` ticked. */
async function count(tree: string): Promise<number> {
  const out = join(tmpdir(), `tickq-tick-fixed-cg-${process.pid}-${Date.now()}.out`);
  const { server, url } = await callgrindRedis(await freePort(), out);
  const stop = async () => {
    if (server.exitCode !== null) return;
    const ended = new Promise((r) => server.once("exit", r));
    server.kill("SIGTERM");
    await ended;
  };
  try {
    const args = ["--child", "--url", url, "--pid", String(server.pid), "--ticks", String(ticks)];
    args.push("--warmup", String(warmup), ...(ordered ? [] : ["--plain-only"]));
    const ran = await sampleInChild<{ ticks: number }>(
      join(tree, "bench/tick-fixed-instructions.ts"),
      args,
      `the ticks of ${tree}`,
    );
    await stop();
    const text = readFileSync(out, "utf8");
    const totals = /^totals: (\d+)/m.exec(text)?.[1] ?? /^summary: (\d+)/m.exec(text)?.[1];
    return Number(totals) / ran.ticks;
  } finally {
    await stop();
    if (values.keep) console.log(`  callgrind output kept: ${out}`);
    else rmSync(out, { force: true });
  }
}

if (values.child) {
  console.log(JSON.stringify(await ticksCounted(values.url!, values.pid!)));
  process.exit(0);
}

const here = fileURLToPath(new URL("..", import.meta.url));
const ref = values.ref === undefined ? undefined : { label: values.ref, ...worktreeOf(here, values.ref) };
// The ref may predate this bench: run this one against its src/.
if (ref && !existsSync(join(ref.dir, "bench/tick-fixed-instructions.ts")))
  copyFileSync(join(here, "bench/tick-fixed-instructions.ts"), join(ref.dir, "bench/tick-fixed-instructions.ts"));
const trees = [...(ref ? [{ label: ref.label, dir: ref.dir }] : []), { label: "this tree", dir: here }];
try {
  const names = ordered ? "one plain job name and one ordered name" : "one plain job name";
  console.log(
    `Redis instructions an empty tick (begin + finish, ${names}, nothing enqueued; callgrind on the redis-server): ${ticks} ticks after ${warmup}`,
  );
  const repeat = Number(values.repeat);
  const counts = new Map(trees.map((t) => [t, [] as number[]]));
  for (let r = 0; r < repeat; r++) {
    for (const tree of r % 2 === 0 ? trees : [...trees].reverse()) {
      const perTick = await count(tree.dir);
      counts.get(tree)!.push(perTick);
      console.log(`  ${tree.label.padEnd(10)} ${Math.round(perTick).toLocaleString("en")} instructions a tick`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [tree, list] of counts)
    console.log(`  ${tree.label.padEnd(10)} median ${Math.round(median(list)).toLocaleString("en")} over ${repeat}`);
  if (trees.length === 2) {
    const [a, b] = trees.map((t) => median(counts.get(t)!));
    console.log(`this tree vs ${trees[0]!.label}: ${((b! / a! - 1) * 100).toFixed(1)} % Redis instructions a tick`);
  }
} finally {
  ref?.remove();
}
process.exit(0);
