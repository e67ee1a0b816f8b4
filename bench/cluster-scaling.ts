// npm run bench:cluster [-- --jobs 100000 --masters 1,2,3 --partitions 1|N|masters --loops 2 --batch 100
//                          --rounds 3 --partitions-per-tick N --pin]
// How tickq's work spreads over a Redis Cluster. For each cluster size
// (private clusters, bench/chaos/private-cluster.ts, no replicas), the same
// no-op drain as on one plain redis-server: N jobs enqueued, then drained by
// `loops` tick loops in this process over ioredis' Cluster client. The plain
// redis-server stays up throughout and each round drains on it and on the
// cluster, in alternating order, so the load of other processes moves both
// alike. Per master, from INFO commandstats and INFO cpu before and after
// each drain: its share of the Redis commands (those run inside scripts
// included), of the Lua time (EVALSHA + EVAL usec) and of the CPU time; per
// drain, the bench process's CPU a job and its Redis round trips a job.
// With one hash tag (`{bench}:`, today's layout) every key sits in one slot,
// so one master does all the work: the baseline. With `--partitions N` each
// of M masters should carry about 1/M of it when M divides N; `--partitions
// masters` gives each cluster size as many partitions as masters. Then the
// model (docs/benchmarks.md): the single node's Redis CPU a job turned into
// the throughput N nodes on N cores would give, checked against the busiest
// master's CPU a job at each size. On a 2-core machine the Redis processes
// and the ticks share the cores: CPU a job and shares say more than rates.
// `--pin` (Linux, taskset): this process on CPU 0, the single node and every
// master on CPU 1, for both shapes alike: the ticks keep a core of their own,
// as on a deployment where Redis runs on other machines.
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Cluster, Redis } from "ioredis";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { partitionPrefixes, slotOf } from "../src/partitions/layout.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { startPrivateRedisCluster } from "./chaos/private-cluster.js";
import { pinApart } from "./cluster/pin.js";
import { printModel, printShape } from "./cluster/print.js";
import { drainer, type Layout } from "./cluster/drain.js";
import type { Run } from "./cluster/work.js";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "100000" },
    masters: { type: "string", default: "1,2,3" },
    partitions: { type: "string", default: "1" },
    loops: { type: "string", default: "2" },
    batch: { type: "string", default: "100" },
    rounds: { type: "string", default: "3" },
    "partitions-per-tick": { type: "string" },
    pin: { type: "boolean", default: false },
  },
});
const N = Number(values.jobs);
const LOOPS = Number(values.loops);
const BATCH = Number(values.batch);
const ROUNDS = Number(values.rounds);
const PER_MASTER = values.partitions === "masters";
const PARTITIONS = PER_MASTER ? 0 : Number(values.partitions);
// Each tick serving one partition keeps as many pipelines in flight as loops, as on one node; by
// default a tick serves all of its partitions at once (loops × partitions in flight).
const PER_TICK = values["partitions-per-tick"] === undefined ? undefined : Number(values["partitions-per-tick"]);
const SHAPE = { jobs: N, loops: LOOPS, batch: BATCH, partitionsPerTick: PER_TICK };
if (!PER_MASTER && !(PARTITIONS >= 1))
  throw new Error(`--partitions must be a count or "masters", got ${values.partitions}`);

const layout = (partitions: number): Layout =>
  partitions > 1 ? { prefix: "bench:", partitions } : { prefix: "{bench}:" };

console.log(
  `cluster scaling: ${N.toLocaleString("en")} no-op jobs, ${LOOPS} tick loops, batch ${BATCH}, ${ROUNDS} round(s), ` +
    `${PER_MASTER ? "as many partitions as masters" : PARTITIONS > 1 ? `partitions: ${PARTITIONS}` : "one hash tag ({bench}:)"}; ` +
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
);
const server = await startPrivate();
const plain = new Redis(server.url);
const singlePort = Number(new URL(server.url).port);
const single = await drainer(
  "single node (redis-server, no cluster)",
  ioredisAdapter(plain),
  { prefix: "bench:" },
  [singlePort],
  SHAPE,
);
const allSingles: Awaited<ReturnType<typeof single>>[] = [];
const shapes: { masters: number; partitions: number; runs: Run[] }[] = [];
try {
  for (const masters of values.masters!.split(",").map(Number)) {
    const cluster = await startPrivateRedisCluster({ masters });
    const client = new Cluster(cluster.seeds);
    try {
      const ports = (await cluster.masters()).map((m) => m.port);
      if (values.pin) await pinApart([singlePort, ...ports]);
      const partitions = PER_MASTER ? masters : PARTITIONS;
      const shape = `${masters} master${masters > 1 ? "s" : ""}, ${partitions > 1 ? `${partitions} partitions` : "one hash tag"}`;
      // Which partitions each master serves: the slot of each partition's prefix.
      const served = new Map<number, number[]>();
      const prefixes = partitions > 1 ? partitionPrefixes("bench:", partitions) : ["{bench}:"];
      for (const [k, p] of prefixes.entries()) {
        const port = (await cluster.masterOf(slotOf(`${p}x`)))!.port;
        served.set(port, [...(served.get(port) ?? []), k]);
      }
      const drain = await drainer(shape, ioredisAdapter(client), layout(partitions), ports, SHAPE);
      const runs: Run[] = [];
      const singles: Run[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        // Alternate which goes first, so a load that rises or falls within a round moves both alike.
        if (r % 2 === 0) singles.push(await single()), runs.push(await drain());
        else runs.push(await drain()), singles.push(await single());
      }
      printShape(runs, singles, (port) => (served.get(port) ?? []).join(",") || "-");
      shapes.push({ masters, partitions, runs });
      allSingles.push(...singles);
    } finally {
      client.disconnect();
      await cluster.stop();
    }
  }
  printModel(allSingles, shapes);
  console.log(
    `\nload average at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
  );
} finally {
  plain.disconnect();
  await server.stop();
}
process.exit(0);
