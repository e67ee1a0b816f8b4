// Where a workflow step's Redis commands go: 500 runs of 10 no-op steps drained by ticks of
// batch 100 on a private Redis; INFO commandstats before and after, each command's calls a step
// (scripts' own commands and the EVALSHA calls included). npx tsx bench/workflow-commands.ts
import { createTickq } from "../src/index.js";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { Redis } from "ioredis";
const server = await startPrivate();
const client = new Redis(server.url);
const probe = new Redis(server.url);
const steps = 10,
  runs = 500;
const tq = createTickq({
  redis: ioredisAdapter(client),
  prefix: "p:",
  jobs: {},
  workflows: {
    ten: {
      run: async (_: null, step) => {
        let s = 0;
        for (let i = 0; i < steps; i++) s += await step.run(`s${i}`, () => i);
        return s;
      },
    },
  },
});
const stats = async () => {
  const o: Record<string, number> = {};
  for (const m of (await probe.info("commandstats")).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    o[m[1]!] = Number(m[2]);
  return o;
};
await tq.workflows.startBulk(Array.from({ length: runs }, () => ({ name: "ten" as const, input: null })));
const a = await stats();
for (let i = 0; i < 1000; i++) {
  const r = await tq.tick({ budgetMs: 10000, batch: 100 });
  if (!r.more) break;
}
const b = await stats();
const rows = Object.entries(b)
  .map(([k, v]) => [k, (v - (a[k] ?? 0)) / (runs * steps)] as const)
  .filter(([, v]) => v > 0.001)
  .sort((x, y) => y[1] - x[1]);
console.log(rows.map(([k, v]) => `${k} ${v.toFixed(3)}`).join("\n"));
console.log(
  "total",
  rows.reduce((s, [, v]) => s + v, 0).toFixed(2),
  "completed",
  (await tq.stats()).workflows.ten?.completed,
);
client.disconnect();
probe.disconnect();
await server.stop();
