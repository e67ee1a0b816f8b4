// npx tsx bench/cluster-client-cost.ts [--jobs 100000 --rounds 5 --shapes 0,4 --pin]
// Where a drain over 3 masters spends more than over one node, in CPU a job
// (which a loaded machine moves far less than wall rates): the same no-op
// drain (bench/cluster/drain.ts) on five shapes, alternating round by round:
//   plain p1 ×2   one redis-server, partitions: 1, 2 tick loops (the single node)
//   plain p3 ×2   the same Redis, partitions: 3, 2 tick loops (6 engine pipelines)
//   plain p1 ×6   partitions: 1, 6 tick loops (as many pipelines as p3 ×2)
//   cluster1 tag  a 1-master cluster, one hash tag, through ioredis' Cluster client
//   cluster3 p3   a 3-master cluster, partitions: 3, 2 tick loops
// Each: client (this process) CPU µs a job, and of it the system time and
// GC time, the time its main thread waited for a core, Redis CPU µs a job
// over all nodes, Redis round trips, commands and bytes received a job, the
// client's forced context switches and the Redis processes' sleeps a 1,000
// jobs (each a wake-up some write paid for), wall jobs/s; medians (ranges).
// `--shapes 0,4` drains only those (by their place in the list above).
// `--pin` (Linux, taskset) puts this process on CPU 0 and every Redis on
// CPU 1 (cluster/pin.ts).
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Cluster, Redis } from "ioredis";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { startPrivateRedisCluster } from "./chaos/private-cluster.js";
import { drainer } from "./cluster/drain.js";
import { pinApart } from "./cluster/pin.js";
import { redisCpuUsPerJob } from "./cluster/print.js";
import type { Run } from "./cluster/work.js";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "100000" },
    rounds: { type: "string", default: "5" },
    shapes: { type: "string" },
    pin: { type: "boolean", default: false },
  },
});
const jobs = Number(values.jobs);
const rounds = Number(values.rounds);
const shape = (loops: number) => ({ jobs, loops, batch: 100 });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[], d = 2) =>
  `${median(xs).toFixed(d)} (${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)})`;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");

console.log(`${jobs.toLocaleString("en")} no-op jobs a drain, batch 100, ${rounds} rounds; load average ${load()}`);
const server = await startPrivate();
const plain = new Redis(server.url);
const plainPort = [Number(new URL(server.url).port)];
const one = await startPrivateRedisCluster({ masters: 1 });
const three = await startPrivateRedisCluster({ masters: 3 });
const cluster1 = new Cluster(one.seeds);
const cluster3 = new Cluster(three.seeds);
try {
  const onePorts = (await one.masters()).map((m) => m.port);
  const threePorts = (await three.masters()).map((m) => m.port);
  if (values.pin) {
    await pinApart([...plainPort, ...onePorts, ...threePorts]);
    console.log("pinned: this process on CPU 0, every Redis on CPU 1");
  }
  const all = [
    () => drainer("plain p1 ×2", ioredisAdapter(plain), { prefix: "cc1:" }, plainPort, shape(2)),
    () => drainer("plain p3 ×2", ioredisAdapter(plain), { prefix: "cc3:", partitions: 3 }, plainPort, shape(2)),
    () => drainer("plain p1 ×6", ioredisAdapter(plain), { prefix: "cc6:" }, plainPort, shape(6)),
    () => drainer("cluster1 tag", ioredisAdapter(cluster1), { prefix: "{cc}:" }, onePorts, shape(2)),
    () => drainer("cluster3 p3", ioredisAdapter(cluster3), { prefix: "cc:", partitions: 3 }, threePorts, shape(2)),
  ];
  const chosen = values.shapes === undefined ? [...all.keys()] : values.shapes.split(",").map(Number);
  const drains = [];
  for (const i of chosen) drains.push(await all[i]!());
  const runs: Run[][] = drains.map(() => []);
  for (let r = 0; r < rounds; r++) {
    const order = [...drains.keys()];
    if (r % 2 === 1) order.reverse();
    for (const i of order) runs[i]!.push(await drains[i]!());
  }
  console.table(
    runs.map((rs) => ({
      shape: rs[0]!.label,
      "client µs/job": spread(rs.map((r) => r.clientCpuUsPerJob)),
      "of it sys": spread(rs.map((r) => r.clientSysUsPerJob)),
      "of it GC": spread(rs.map((r) => r.clientGcUsPerJob)),
      "client waited for a core µs/job": spread(rs.map((r) => r.clientWaitUsPerJob)),
      "Redis µs/job (all nodes)": spread(rs.map(redisCpuUsPerJob)),
      "round trips/job": median(rs.map((r) => r.tripsPerJob)).toFixed(4),
      "cmds/job": median(rs.map((r) => r.nodes.reduce((a, n) => a + n.calls, 0) / r.jobs)).toFixed(3),
      "bytes sent/job": median(rs.map((r) => r.nodes.reduce((a, n) => a + n.bytesIn, 0) / r.jobs)).toFixed(0),
      "forced/1k": median(rs.map((r) => r.switchesPerKJob.involuntary)).toFixed(1),
      "Redis sleeps/1k jobs": median(
        rs.map((r) => (r.nodes.reduce((a, n) => a + n.sleeps, 0) * 1_000) / r.jobs),
      ).toFixed(1),
      "jobs/s": median(rs.map((r) => r.rate)),
    })),
  );
  console.log(`load average at the end ${load()}`);
} finally {
  plain.disconnect();
  cluster1.disconnect();
  cluster3.disconnect();
  await Promise.all([server.stop(), one.stop(), three.stop()]);
}
process.exit(0);
