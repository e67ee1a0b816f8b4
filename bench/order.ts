// What priorities and fair-share groups cost a drain (src/order/), alone:
//   npx tsx bench/order.ts [-- --jobs 20000 --runs 5 --groups 10,1000 --only plain]
// Ticks of batch 100 drain N no-op jobs, in one process, on a private
// redis-server (so INFO commandstats counts this bench's commands alone), in
// each shape: plain (the list, as Sidekiq lays it out), priority (each job a
// priority from -5 to 5, none 0), and groups (jobs spread round-robin over G
// groups). Runs alternate between the shapes (bench/alternating.ts), so the machine's load moves
// them alike; it prints medians and each shape's rate as a share of plain.
// `--only plain` prints the plain rate alone: run it from two checkouts in
// turn to compare a change's cost to plain jobs.
import { parseArgs } from "node:util";
import type { Redis } from "ioredis";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { createTickq, type BulkJob } from "../src/index.js";
import { alternate, median, onPrivateRedis, percentOf } from "./alternating.js";
import { enqueueInChunks, tickUntil } from "./noops.js";
import { commandsProcessed, scriptUsec } from "./wire.js";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "20000" },
    runs: { type: "string", default: "5" },
    groups: { type: "string", default: "10,1000" },
    only: { type: "string", default: "" },
  },
});
const N = Number(values.jobs);
const RUNS = Number(values.runs);

type Shape = { label: string; job: (i: number) => BulkJob<"noop"> };
const shapes: Shape[] = [
  { label: "plain", job: (i: number): BulkJob<"noop"> => ({ name: "noop", args: [i] }) },
  {
    label: "priority",
    job: (i: number): BulkJob<"noop"> => ({ name: "noop", args: [i], priority: (i % 11) - 5 || 5 }),
  },
  ...values.groups
    .split(",")
    .filter(Boolean)
    .map((g) => ({
      label: `groups ×${g}`,
      job: (i: number) => ({ name: "noop" as const, args: [i], group: `g${i % Number(g)}` }),
    })),
].filter((s) => !values.only || values.only.split(",").includes(s.label));

async function drainOnce(
  redis: Redis,
  shape: Shape,
  n: number,
  run: number,
): Promise<{ rate: number; commands: number; micros: number }> {
  const prefix = `bench-order:${shape.label}:${run}:`;
  const tq = createTickq({ redis: ioredisAdapter(redis), prefix, jobs: { noop: () => {} } });
  await enqueueInChunks((jobs) => tq.enqueueBulk(jobs), n, shape.job, 10_000);
  const before = await commandsProcessed(redis);
  const microsBefore = await scriptUsec(redis);
  const t = performance.now();
  await tickUntil(tq, n, { batch: 100 });
  const ms = performance.now() - t;
  const micros = ((await scriptUsec(redis)) - microsBefore) / n;
  const commands = ((await commandsProcessed(redis)) - before - 2) / n;
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  return { rate: Math.round((n / ms) * 1000), commands, micros };
}

await onPrivateRedis(async (redis) => {
  const samples = await alternate({
    variants: shapes,
    rounds: RUNS,
    jobs: N,
    drain: (shape, n, run) => drainOnce(redis, shape, n, run),
  });
  const plainShape = shapes.find((s) => s.label === "plain");
  const plain = plainShape && median(samples.get(plainShape)!.map((r) => r.rate));
  const plainMicros = plainShape && median(samples.get(plainShape)!.map((r) => r.micros));
  console.log(`${N} no-op jobs a drain, batch 100, ${RUNS} alternating runs, medians`);
  console.log("| shape | drain jobs/s | runs | vs plain | script µs/job | vs plain | Redis commands/job |");
  console.log("|---|---|---|---|---|---|---|");
  for (const shape of shapes) {
    const runs = samples.get(shape)!;
    const xs = runs.map((r) => r.rate);
    const us = median(runs.map((r) => r.micros));
    const share = plain ? percentOf(median(xs), plain, 0) : "";
    const usShare = plainMicros ? percentOf(us, plainMicros, 0) : "";
    console.log(
      `| ${shape.label} | ${median(xs)} | ${xs.join(", ")} | ${share} | ${us.toFixed(2)} | ${usShare} | ${runs[0]!.commands.toFixed(2)} |`,
    );
  }
});
