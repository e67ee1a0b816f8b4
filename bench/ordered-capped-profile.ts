// Where a capped ordered drain's time goes (docs/benchmarks.md, ordered jobs capped at one payload an
// execution): on a private Redis, 5,000 payloads over 100 ids run one payload an execution, first fed in
// waves of one payload an id (uncapped), then all enqueued at once to a definition with maxPayloads: 1;
// for each, executions/s, Redis commands an execution by command (INFO commandstats, reset on the private
// server only), Redis' CPU and this process's. npx tsx bench/ordered-capped-profile.ts
import { Redis } from "ioredis";
import { createTickq } from "../src/index.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { startPrivate } from "../src/platforms/node/find-redis.js";

const server = await startPrivate();
const redis = new Redis(server.url);
const probe = new Redis(server.url);
for (const cap of [undefined, 1]) {
  let seen = 0;
  const prefix = `p${cap}:`;
  const tq = createTickq({
    redis: ioredisAdapter(redis),
    prefix,
    jobs: {},
    ordered: { c: { perform: () => void (seen += 1), ...(cap ? { maxPayloads: cap } : {}) } },
  });
  const waves = 50;
  const all = Array.from({ length: waves }, (_, w) =>
    Array.from({ length: 100 }, (_, i) => ({ name: "c" as const, id: `id-${i}`, payload: { w, i } })),
  );
  // uncapped: waves drained one by one (one payload an execution); capped: everything at once
  await probe.config("RESETSTAT");
  const cpu0 = process.cpuUsage();
  const rinfo0 = await probe.info("cpu");
  const t = performance.now();
  if (cap) {
    for (let b = 0; b < waves; b += 10) await tq.enqueueOrderedBulk(all.slice(b, b + 10).flat());
    while (seen < 5000) await tq.tick({ batch: 100, concurrency: 100 });
  } else {
    for (let w = 0; w < waves; w++) {
      await tq.enqueueOrderedBulk(all[w]!);
      while (seen < (w + 1) * 100) await tq.tick({ batch: 100, concurrency: 100 });
    }
  }
  const ms = performance.now() - t;
  const cpu = process.cpuUsage(cpu0);
  const rinfo1 = await probe.info("cpu");
  const rcpu = (s: string) => Number(/used_cpu_user:(\S+)/.exec(s)![1]) + Number(/used_cpu_sys:(\S+)/.exec(s)![1]);
  const stats = await probe.info("commandstats");
  const rows = [...stats.matchAll(/cmdstat_(\w+):calls=(\d+),usec=(\d+)/g)]
    .map((m) => [m[1], Number(m[2]), Number(m[3])] as const)
    .sort((a, b) => b[1] - a[1]);
  const total = rows.filter((r) => r[0] !== "info" && r[0] !== "config").reduce((s, r) => s + r[1], 0);
  console.log(
    `${cap ? "capped 1, all at once" : "uncapped, waves"}: ${Math.round((5000 * 1000) / ms)} executions/s, ${(total / 5000).toFixed(2)} cmds/exec, Redis CPU ${(rcpu(rinfo1) - rcpu(rinfo0)).toFixed(2)} s, tick process CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s, wall ${(ms / 1000).toFixed(2)} s`,
  );
  console.log(
    rows
      .slice(0, 14)
      .map((r) => `${r[0]} ${(r[1] / 5000).toFixed(2)}/exec (${r[2]} µs)`)
      .join("; "),
  );
}
redis.disconnect();
probe.disconnect();
await server.stop();
