// npx tsx bench/cluster-client-cost.ts [--jobs 100000 --rounds 5]
// Where a drain over 3 masters spends more than over one node, in CPU a job
// (which a loaded machine moves far less than wall rates): the same no-op
// drain (bench/cluster/drain.ts) on five shapes, alternating round by round:
//   plain p1 ×2   one redis-server, partitions: 1, 2 tick loops (the single node)
//   plain p3 ×2   the same Redis, partitions: 3, 2 tick loops (6 engine pipelines)
//   plain p1 ×6   partitions: 1, 6 tick loops (as many pipelines as p3 ×2)
//   cluster1 tag  a 1-master cluster, one hash tag, through ioredis' Cluster client
//   cluster3 p3   a 3-master cluster, partitions: 3, 2 tick loops
// Each: client (this process) CPU µs a job, Redis CPU µs a job over all
// nodes, Redis round trips and commands a job, wall jobs/s; medians.
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Cluster, Redis } from "ioredis";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { startPrivateRedisCluster } from "./chaos/private-cluster.js";
import { drainer } from "./cluster/drain.js";
import { redisCpuUsPerJob } from "./cluster/print.js";
import type { Run } from "./cluster/work.js";

const { values } = parseArgs({
  options: { jobs: { type: "string", default: "100000" }, rounds: { type: "string", default: "5" } },
});
const jobs = Number(values.jobs);
const rounds = Number(values.rounds);
const shape = (loops: number) => ({ jobs, loops, batch: 100 });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
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
  const drains = [
    await drainer("plain p1 ×2", ioredisAdapter(plain), { prefix: "cc1:" }, plainPort, shape(2)),
    await drainer("plain p3 ×2", ioredisAdapter(plain), { prefix: "cc3:", partitions: 3 }, plainPort, shape(2)),
    await drainer("plain p1 ×6", ioredisAdapter(plain), { prefix: "cc6:" }, plainPort, shape(6)),
    await drainer("cluster1 tag", ioredisAdapter(cluster1), { prefix: "{cc}:" }, onePorts, shape(2)),
    await drainer("cluster3 p3", ioredisAdapter(cluster3), { prefix: "cc:", partitions: 3 }, threePorts, shape(2)),
  ];
  const runs: Run[][] = drains.map(() => []);
  for (let r = 0; r < rounds; r++) {
    const order = [...drains.keys()];
    if (r % 2 === 1) order.reverse();
    for (const i of order) runs[i]!.push(await drains[i]!());
  }
  console.table(
    runs.map((rs) => ({
      shape: rs[0]!.label,
      "client µs/job": median(rs.map((r) => r.clientCpuUsPerJob)).toFixed(2),
      "Redis µs/job (all nodes)": median(rs.map(redisCpuUsPerJob)).toFixed(2),
      "round trips/job": median(rs.map((r) => r.tripsPerJob)).toFixed(4),
      "cmds/job": median(rs.map((r) => r.nodes.reduce((a, n) => a + n.calls, 0) / r.jobs)).toFixed(3),
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
