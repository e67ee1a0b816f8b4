// npx tsx bench/cluster-profile.ts [--jobs 50000 --rounds 3 --out /tmp --pin
//                                   --shapes single,plain3,cluster1,cluster3 --loops 2]
// Where the tick process's CPU goes in the no-op drain (bench/cluster/drain.ts: 2 tick loops,
// batch 100), by function: on one redis-server with partitions: 1 (single) or 3 (plain3), on a
// private 1-master cluster with one hash tag (cluster1) and on a 3-master one with partitions: 3
// (cluster3), in turns. A V8 CPU profile (node:inspector) runs around each measured drain only,
// not the enqueue nor the warm-up. Writes one .cpuprofile per drain (Chrome DevTools opens it)
// and prints, per shape over its drains, the µs a job of each function's self time, largest
// first. The profiler's own cost falls on every function alike: compare shapes, not with the
// unprofiled bench. `--pin`: this process on CPU 0, every Redis on CPU 1 (cluster/pin.ts).
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Cluster, Redis } from "ioredis";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { startPrivateRedisCluster } from "./chaos/private-cluster.js";
import { drainer } from "./cluster/drain.js";
import { pinApart } from "./cluster/pin.js";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "50000" },
    rounds: { type: "string", default: "3" },
    out: { type: "string", default: "/tmp" },
    pin: { type: "boolean", default: false },
    loops: { type: "string", default: "2" },
    shapes: { type: "string", default: "single,cluster3" },
  },
});
const shape = { jobs: Number(values.jobs), loops: Number(values.loops), batch: 100 };
interface Node {
  id: number;
  callFrame: { functionName: string; url: string };
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time a job by function (name and file), µs, over `profiles` of `jobs` jobs each; idle left out. */
function selfTimes(profiles: Profile[], jobs: number): Map<string, number> {
  const by = new Map<string, number>();
  for (const profile of profiles) {
    const nodes = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
    profile.samples.forEach((id, i) => {
      const { functionName, url } = nodes.get(id)!;
      // Idle, and the inspector answering Profiler.stop: not the drain's work.
      if (functionName === "(idle)" || (functionName === "dispatch" && url === "")) return;
      const key = `${functionName || "(anonymous)"} ${url.replace(/^.*\//, "")}`;
      by.set(key, (by.get(key) ?? 0) + profile.timeDeltas[i]! / profiles.length / jobs);
    });
  }
  return by;
}

console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(", ")}`,
);
const server = await startPrivate();
const plain = new Redis(server.url);
const one = await startPrivateRedisCluster({ masters: 1 });
const cluster1 = new Cluster(one.seeds);
const three = await startPrivateRedisCluster({ masters: 3 });
const cluster = new Cluster(three.seeds);
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 200 });
try {
  const ports = (await three.masters()).map((m) => m.port);
  const onePorts = (await one.masters()).map((m) => m.port);
  const names = values.shapes!.split(",");
  const profiles: Record<string, Profile[]> = Object.fromEntries(names.map((n) => [n, []]));
  let into: Profile[] = [];
  const hooks = {
    before: async () => void (await session.post("Profiler.start")),
    after: async () => void into.push((await session.post("Profiler.stop")).profile as unknown as Profile),
  };
  const singlePort = [Number(new URL(server.url).port)];
  if (values.pin) await pinApart([...singlePort, ...onePorts, ...ports]);
  const all: Record<string, () => ReturnType<typeof drainer>> = {
    single: () => drainer("single p1", ioredisAdapter(plain), { prefix: "prof1:" }, singlePort, shape, hooks),
    plain3: () =>
      drainer("plain p3", ioredisAdapter(plain), { prefix: "prof3:", partitions: 3 }, singlePort, shape, hooks),
    cluster1: () => drainer("cluster1 tag", ioredisAdapter(cluster1), { prefix: "{prof}:" }, onePorts, shape, hooks),
    cluster3: () =>
      drainer("cluster3 p3", ioredisAdapter(cluster), { prefix: "prof:", partitions: 3 }, ports, shape, hooks),
  };
  const drains: (() => Promise<unknown>)[] = [];
  for (const name of names) drains.push(await all[name]!());
  for (let r = 0; r < Number(values.rounds); r++) {
    const order = [...names.keys()];
    if (r % 2 === 1) order.reverse();
    for (const i of order) {
      into = profiles[names[i]!]!;
      await drains[i]!();
    }
  }
  for (const [name, list] of Object.entries(profiles)) {
    mkdirSync(values.out!, { recursive: true });
    for (const [i, p] of list.entries()) writeFileSync(join(values.out!, `${name}-${i}.cpuprofile`), JSON.stringify(p));
    const self = [...selfTimes(list, shape.jobs)].sort((a, b) => b[1] - a[1]);
    const total = self.reduce((sum, [, us]) => sum + us, 0);
    console.log(
      `\n${name}: ${total.toFixed(2)} µs/job sampled over ${list.length} drains (${values.out}/${name}-*.cpuprofile)`,
    );
    for (const [key, us] of self.slice(0, 25))
      console.log(`  ${us.toFixed(3).padStart(6)} µs  ${((100 * us) / total).toFixed(1).padStart(4)} %  ${key}`);
  }
} finally {
  session.disconnect();
  plain.disconnect();
  cluster.disconnect();
  cluster1.disconnect();
  await Promise.all([server.stop(), one.stop(), three.stop()]);
}
process.exit(0);
