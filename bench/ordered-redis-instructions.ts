// Redis' instructions an ordered execution costs, counted by valgrind's callgrind on the redis-server
// (issue 46: ordered ids at the cost of plain jobs). Wall-clock Redis CPU moves by ±20 % with the
// machine's other tenants; an instruction count is the same for the same scripts and calls, so two
// trees compare to a percent. For each tree (this one, and `--ref REV` checked out beside it):
// a redis-server under callgrind (instrumentation off), a fresh tsx process of that tree runs waves
// of one payload per id over `--ids` ids (each wave one enqueueOrderedBulk, then ticks of batch 100
// until it ran), and turns instrumentation on around the part measured, one server per part:
//   enqueue   the waves' enqueueOrderedBulk calls (ordered_enqueue.lua)
//   drain     the ticks that run them (begin, step, finish: fetch, ack, the tick's fixed work)
//   plain     the yardstick: the same waves as no-op plain jobs (enqueueBulk, then ticks), all counted
//   capped    (`--capped`) the same payloads enqueued at once to a name with maxPayloads 1, then the
//             ticks that run them one payload an execution (bench/ordered.ts's "capped"), counted
//   capped enqueue  (`--capped`) those payloads' enqueue alone: ten waves a call (1,000 payloads at
//             100 ids, ten an id), as bench/ordered.ts's "capped" enqueues them, counted
// Metrics on (the default), no ordered job ever failed: the common case. Three warm-up waves first, and
// one of plain jobs (so no part counts a script's first load).
// Needs valgrind (Debian's package).
// `--keep DIR` keeps each server's callgrind output there (PART-tree / PART-ref), for callgrind_annotate.
//   npx tsx bench/ordered-redis-instructions.ts [--ref main] [--waves 20] [--ids 100] [--capped] [--keep DIR]
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
    waves: { type: "string", default: "20" },
    ids: { type: "string", default: "100" },
    child: { type: "string" },
    url: { type: "string" },
    pid: { type: "string" },
    part: { type: "string" },
    keep: { type: "string" },
    capped: { type: "boolean", default: false },
  },
});
const waves = Number(values.waves);
const ids = Number(values.ids);
type Part = "enqueue" | "drain" | "plain" | "capped" | "capped-enqueue";

/** In the tree's own process: the waves, instrumentation on around `part`. */
async function runWaves(tree: string, url: string, pid: string, part: Part): Promise<number> {
  const { createTickq } = await import(join(tree, "src/index.ts"));
  const { ioredisAdapter } = await import(join(tree, "src/redis/ioredis.ts"));
  const client = new Redis(url);
  let executed = 0;
  const tq = createTickq({
    redis: ioredisAdapter(client),
    prefix: "oi:",
    jobs: { noop: (_args: [number, number]) => {} },
    ordered: {
      index: { perform: () => void (executed += 1) },
      capped: { maxPayloads: 1, perform: () => void (executed += 1) },
    },
  });
  const wave = (w: number, name = "index") =>
    Array.from({ length: ids }, (_, i) => ({ name, id: `id-${i}`, payload: { w, i } }));
  const drain = async (until: number) => {
    while (executed < until) {
      const report = await tq.tick({ batch: 100, concurrency: 100, budgetMs: 60_000 });
      if (report.fetched === 0 && !report.more) throw new Error(`drained ${executed} of ${until}`);
    }
  };
  const instrument = (on: boolean) =>
    execFileSync("callgrind_control", ["-i", on ? "on" : "off", pid], { stdio: "ignore" });
  for (let w = 0; w < 3; w++) {
    await tq.enqueueOrderedBulk(wave(-3 + w));
    await drain(executed + ids);
  }
  // And one wave of plain jobs: every script a part calls is loaded (compiled) before it is counted. A
  // wave of ordered ids that needs no step call would otherwise leave step's compile to the plain part.
  await tq.enqueueBulk(Array.from({ length: ids }, (_, i) => ({ name: "noop", args: [-1, i] })));
  for (let done = 0; done < ids; )
    done += (await tq.tick({ batch: 100, concurrency: 100, budgetMs: 60_000 })).succeeded;
  executed = 0;
  if (part === "capped" || part === "capped-enqueue") {
    // Two payloads an id first, unmeasured: the capped paths (a rest behind a run) are warm.
    await tq.enqueueOrderedBulk([...wave(-2, "capped"), ...wave(-1, "capped")]);
    await drain(2 * ids);
    executed = 0;
    if (part === "capped-enqueue") instrument(true);
    for (let b = 0; b < waves; b += 10)
      await tq.enqueueOrderedBulk(
        Array.from({ length: Math.min(10, waves - b) }, (_, j) => wave(b + j, "capped")).flat(),
      );
    instrument(part === "capped");
    await drain(waves * ids);
    if (part === "capped") instrument(false);
    client.disconnect();
    // The enqueue's instructions a payload: every payload enqueued ran once.
    return part === "capped" ? executed : waves * ids;
  }
  if (part === "plain") {
    // The yardstick: the same waves as no-op plain jobs, enqueued in bulk and drained, all counted.
    let done = 0;
    for (let w = 0; w < waves; w++) {
      instrument(true);
      await tq.enqueueBulk(Array.from({ length: ids }, (_, i) => ({ name: "noop", args: [w, i] })));
      while (done < (w + 1) * ids)
        done += (await tq.tick({ batch: 100, concurrency: 100, budgetMs: 60_000 })).succeeded;
      instrument(false);
    }
    client.disconnect();
    return done;
  }
  for (let w = 0; w < waves; w++) {
    if (part === "enqueue") instrument(true);
    await tq.enqueueOrderedBulk(wave(w));
    instrument(part === "drain");
    await drain((w + 1) * ids);
    if (part === "drain") instrument(false);
  }
  client.disconnect();
  return executed;
}

/** Instructions the redis-server ran while `tree` measured `part`. */
async function count(tree: string, part: Part): Promise<number> {
  const port = await freePort();
  const out = join(tmpdir(), `tickq-ordered-cg-${process.pid}-${port}.out`);
  const { server, url } = await callgrindRedis(port, out);
  try {
    const args = ["--child", tree, "--url", url, "--pid", String(server.pid), "--part", part];
    const executed = await sampleInChild<number>(
      fileURLToPath(import.meta.url),
      args.concat(["--waves", String(waves), "--ids", String(ids)]),
      `the ${part} of ${tree}`,
    );
    const ended = new Promise((r) => server.once("exit", r));
    server.kill("SIGTERM");
    await ended;
    const totals =
      /^totals: (\d+)/m.exec(readFileSync(out, "utf8"))?.[1] ?? /^summary: (\d+)/m.exec(readFileSync(out, "utf8"))?.[1];
    return Number(totals) / executed;
  } finally {
    if (server.exitCode === null) server.kill("SIGKILL");
    if (values.keep !== undefined && existsSync(out))
      copyFileSync(out, join(values.keep, `${part}-${tree === repo ? "tree" : "ref"}.callgrind.out`));
    rmSync(out, { force: true });
  }
}

if (values.child !== undefined) {
  if (!existsSync(join(values.child, "src/index.ts"))) throw new Error(`${values.child} holds no src/index.ts`);
  console.log(JSON.stringify(await runWaves(values.child, values.url!, values.pid!, values.part as Part)));
  process.exit(0);
}

const repo = fileURLToPath(new URL("..", import.meta.url));
const ref = values.ref === undefined ? undefined : { label: values.ref, ...worktreeOf(repo, values.ref) };
const trees = [...(ref ? [{ label: ref.label, dir: ref.dir }] : []), { label: "this tree", dir: repo }];
try {
  console.log(
    `Redis instructions an ordered execution costs (callgrind): ${waves} waves of one payload per id over ${ids} ids`,
  );
  const rows = [];
  for (const t of trees) {
    const enqueue = await count(t.dir, "enqueue");
    const drain = await count(t.dir, "drain");
    const plain = await count(t.dir, "plain");
    const capped = values.capped
      ? {
          "capped enqueue / payload": Math.round(await count(t.dir, "capped-enqueue")),
          "capped drain / execution": Math.round(await count(t.dir, "capped")),
        }
      : {};
    rows.push({
      tree: t.label,
      "enqueue / payload": Math.round(enqueue),
      "drain / execution": Math.round(drain),
      "in all": Math.round(enqueue + drain),
      "a plain job, enqueue and drain": Math.round(plain),
      ...capped,
    });
  }
  console.table(rows);
  if (rows.length === 2)
    console.log(
      `this tree vs ${rows[0]!.tree}: ${((rows[1]!["in all"] / rows[0]!["in all"] - 1) * 100).toFixed(1)} % in all`,
    );
} finally {
  ref?.remove();
}
