// Redis' instructions a plain no-op job costs in the one-loop drain (issue 46: the Redis side of
// a job's step), counted by valgrind's callgrind on the redis-server. Wall-clock Redis CPU moves by
// ±20 % with the machine's other tenants; an instruction count is the same for the same scripts and
// calls, so two trees compare to a percent. For each tree (this one, and `--ref REV` checked out
// beside it): a redis-server under callgrind (instrumentation off), a fresh tsx process of that tree
// enqueues the jobs and drains them in one tick loop of batch 100 (bench/cluster/drain.ts, as
// bench/client-instructions.ts --loops 1 drives the client), instrumentation on around the measured
// drain only (begin, the steps, finish: not the enqueue nor the warm-up drain). Metrics on (the default).
// `--repeat N`: each tree N times, the order reversed every other time, then the median of each.
// `--batch N`: the tick's batch (100: issue 46's figure); two batches part a step's fixed cost from a job's.
// `--top N`: also the N functions of most inclusive instructions of each tree's last server
// (callgrind_annotate), a job's share of each: where the Lua VM, the commands and the replies go.
// `--keep`: leaves each server's callgrind output in the temporary folder (callgrind_annotate reads it).
// Needs valgrind (Debian's package).
//   npx tsx bench/redis-step-instructions.ts [--ref main] [--jobs 20000] [--batch 100] [--repeat 1] [--top 0] [--keep]
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
    jobs: { type: "string", default: "20000" },
    batch: { type: "string", default: "100" },
    repeat: { type: "string", default: "1" },
    top: { type: "string", default: "0" },
    keep: { type: "boolean", default: false },
    child: { type: "boolean", default: false },
    url: { type: "string" },
    pid: { type: "string" },
  },
});
const jobs = Number(values.jobs);
const batch = Number(values.batch);

interface Drained {
  jobs: number;
  tripsPerJob: number;
}

/** In the tree's own process: one drain, the server's instrumentation on around the measured part. */
async function drainCounted(url: string, pid: string): Promise<Drained> {
  const { ioredisAdapter } = await import("../src/redis/ioredis.js");
  const { drainer } = await import("./cluster/drain.js");
  const client = new Redis(url);
  const instrument = async (on: boolean) =>
    void execFileSync("callgrind_control", ["-i", on ? "on" : "off", pid], { stdio: "ignore" });
  const port = Number(new URL(url).port);
  const drain = await drainer(
    "single",
    ioredisAdapter(client),
    { prefix: "rsi:" },
    [port],
    { jobs, loops: 1, batch },
    { before: () => instrument(true), after: () => instrument(false) },
  );
  const run = await drain();
  client.disconnect();
  return { jobs: run.jobs, tripsPerJob: run.tripsPerJob };
}

/** A redis-server under callgrind, instrumentation off until the child turns it on. */
async function countedServer(out: string) {
  const port = await freePort();
  const { server, url } = await callgrindRedis(port, out);
  return {
    url,
    pid: String(server.pid),
    async stop() {
      if (server.exitCode !== null) return;
      const ended = new Promise((r) => server.once("exit", r));
      server.kill("SIGTERM");
      await ended;
    },
  };
}

/** Instructions a job the server ran while `tree` drained; `top` > 0 also its costliest functions. */
async function count(tree: string, top: number): Promise<{ perJob: number; trips: number; costliest: string }> {
  const out = join(tmpdir(), `tickq-redis-step-cg-${process.pid}-${Date.now()}.out`);
  const server = await countedServer(out);
  try {
    const args = [
      "--child",
      "--url",
      server.url,
      "--pid",
      server.pid,
      "--jobs",
      String(jobs),
      "--batch",
      String(batch),
    ];
    const drained = await sampleInChild<Drained>(
      join(tree, "bench/redis-step-instructions.ts"),
      args,
      `the drain of ${tree}`,
    );
    await server.stop();
    const text = readFileSync(out, "utf8");
    const totals = /^totals: (\d+)/m.exec(text)?.[1] ?? /^summary: (\d+)/m.exec(text)?.[1];
    const costliest = top > 0 ? costliestFunctions(out, top, drained.jobs) : "";
    return { perJob: Number(totals) / drained.jobs, trips: drained.tripsPerJob, costliest };
  } finally {
    await server.stop();
    if (values.keep) console.log(`  callgrind output kept: ${out}`);
    else rmSync(out, { force: true });
  }
}

/** callgrind_annotate's inclusive counts, as instructions a job, the `top` costliest functions. */
function costliestFunctions(out: string, top: number, drained: number): string {
  const text = execFileSync("callgrind_annotate", ["--inclusive=yes", `--threshold=100`, out], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const rows: string[] = [];
  for (const line of text.split("\n")) {
    const m = /^\s*([\d,]+)\s+\([^)]*\)\s+\*?\s*(\S.*)$/.exec(line);
    if (!m || rows.length >= top) continue;
    const ir = Number(m[1]!.replaceAll(",", ""));
    rows.push(
      `    ${Math.round(ir / drained)
        .toLocaleString("en")
        .padStart(8)}  ${m[2]!.replace(/ \[.*$/, "")}`,
    );
  }
  return rows.join("\n");
}

if (values.child) {
  console.log(JSON.stringify(await drainCounted(values.url!, values.pid!)));
  process.exit(0);
}

const here = fileURLToPath(new URL("..", import.meta.url));
const ref = values.ref === undefined ? undefined : { label: values.ref, ...worktreeOf(here, values.ref) };
// The ref may predate this bench: run this one against its src/.
if (ref && !existsSync(join(ref.dir, "bench/redis-step-instructions.ts")))
  copyFileSync(join(here, "bench/redis-step-instructions.ts"), join(ref.dir, "bench/redis-step-instructions.ts"));
const trees = [...(ref ? [{ label: ref.label, dir: ref.dir }] : []), { label: "this tree", dir: here }];
try {
  console.log(
    `Redis instructions a plain no-op job (callgrind on the redis-server): drain of ${jobs.toLocaleString("en")} jobs, one tick loop, batch ${batch}, metrics on`,
  );
  const repeat = Number(values.repeat);
  const top = Number(values.top);
  const counts = new Map(trees.map((t) => [t, [] as number[]]));
  for (let r = 0; r < repeat; r++) {
    for (const tree of r % 2 === 0 ? trees : [...trees].reverse()) {
      const { perJob, trips, costliest } = await count(tree.dir, r === repeat - 1 ? top : 0);
      counts.get(tree)!.push(perJob);
      console.log(
        `  ${tree.label.padEnd(10)} ${Math.round(perJob).toLocaleString("en")} instructions a job, ${trips.toFixed(4)} round trips a job`,
      );
      if (costliest) console.log(`  ${tree.label}: inclusive instructions a job, costliest first\n${costliest}`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [tree, list] of counts)
    console.log(`  ${tree.label.padEnd(10)} median ${Math.round(median(list)).toLocaleString("en")} over ${repeat}`);
  if (trees.length === 2) {
    const [a, b] = trees.map((t) => median(counts.get(t)!));
    console.log(`this tree vs ${trees[0]!.label}: ${((b! / a! - 1) * 100).toFixed(1)} % Redis instructions a job`);
  }
} finally {
  ref?.remove();
}
process.exit(0);
