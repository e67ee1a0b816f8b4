// What priorities and fair-share groups cost a drain (src/order/), alone:
//   npx tsx bench/order.ts [-- --jobs 20000 --runs 5 --groups 10,1000 --only plain]
// Ticks of batch 100 drain N no-op jobs, in one process, on a private
// redis-server (so INFO commandstats counts this bench's commands alone), in
// each shape: plain (the list, as Sidekiq lays it out), priority (each job a
// priority from -5 to 5, none 0), and groups (jobs spread round-robin over G
// groups). Runs alternate between the shapes, so the machine's load moves
// them alike; it prints medians and each shape's rate as a share of plain.
// `--only plain` prints the plain rate alone: run it from two checkouts in
// turn to compare a change's cost to plain jobs.
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { createTickq, type BulkJob } from "../src/index.js";
import { commandsProcessed } from "./wire.js";

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

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** µs Redis spent in scripts so far (INFO commandstats of EVAL and EVALSHA): CPU time, which the machine's load moves less than a wall-clock rate. */
async function scriptMicros(redis: Redis): Promise<number> {
  const info = await redis.info("commandstats");
  let total = 0;
  for (const match of info.matchAll(/^cmdstat_(?:eval|evalsha):calls=\d+,usec=(\d+)/gm)) total += Number(match[1]);
  return total;
}

async function drainOnce(
  redis: Redis,
  shape: Shape,
  run: number,
): Promise<{ rate: number; commands: number; micros: number }> {
  const prefix = `bench-order:${shape.label}:${run}:`;
  const tq = createTickq({ redis: ioredisAdapter(redis), prefix, jobs: { noop: () => {} } });
  for (let i = 0; i < N; i += 10_000)
    await tq.enqueueBulk(Array.from({ length: Math.min(10_000, N - i) }, (_, k) => shape.job(i + k)));
  const before = await commandsProcessed(redis);
  const microsBefore = await scriptMicros(redis);
  const t = performance.now();
  let done = 0;
  while (done < N) {
    const report = await tq.tick({ batch: 100, concurrency: 100, budgetMs: 60_000 });
    if (report.fetched === 0) throw new Error(`${shape.label}: drained only ${done} of ${N}`);
    done += report.succeeded;
  }
  const ms = performance.now() - t;
  const micros = ((await scriptMicros(redis)) - microsBefore) / N;
  const commands = ((await commandsProcessed(redis)) - before - 2) / N;
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  return { rate: Math.round((N / ms) * 1000), commands, micros };
}

async function main() {
  const server = await startPrivate();
  const redis = new Redis(server.url);
  try {
    await drainOnce(redis, shapes[0]!, -1); // warm-up: JIT, connection, scripts loaded
    const rates = new Map<string, number[]>(shapes.map((s) => [s.label, []]));
    const commands = new Map<string, number>();
    const micros = new Map<string, number[]>(shapes.map((s) => [s.label, []]));
    for (let run = 0; run < RUNS; run++) {
      for (const shape of shapes) {
        const r = await drainOnce(redis, shape, run);
        rates.get(shape.label)!.push(r.rate);
        micros.get(shape.label)!.push(r.micros);
        if (run === 0) commands.set(shape.label, r.commands);
      }
    }
    const plain = rates.has("plain") ? median(rates.get("plain")!) : undefined;
    console.log(`${N} no-op jobs a drain, batch 100, ${RUNS} alternating runs, medians`);
    const plainMicros = rates.has("plain") ? median(micros.get("plain")!) : undefined;
    console.log("| shape | drain jobs/s | runs | vs plain | script µs/job | vs plain | Redis commands/job |");
    console.log("|---|---|---|---|---|---|---|");
    for (const shape of shapes) {
      const xs = rates.get(shape.label)!;
      const share = plain ? `${Math.round((median(xs) / plain) * 100)} %` : "";
      const us = median(micros.get(shape.label)!);
      const usShare = plainMicros ? `${Math.round((us / plainMicros) * 100)} %` : "";
      console.log(
        `| ${shape.label} | ${median(xs)} | ${xs.join(", ")} | ${share} | ${us.toFixed(2)} | ${usShare} | ${commands.get(shape.label)!.toFixed(2)} |`,
      );
    }
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

await main();
