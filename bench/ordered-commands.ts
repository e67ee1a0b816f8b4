// Where an ordered execution's Redis commands go: 5,000 payloads over 100 ids, one payload per
// execution (waves of one payload per id, each drained before the next), enqueue included, ticks
// of batch 100 on a private Redis; INFO commandstats before and after, each command's calls an
// execution (scripts' own commands and the EVALSHA calls included).
// `--single` enqueues each payload with its own enqueueOrdered call (a script run each), as a
// producer that sends payloads one by one does; by default each wave is one enqueueOrderedBulk.
//   npx tsx bench/ordered-commands.ts [--payloads 5000] [--ids 100] [--single]
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { createTickq } from "../src/index.js";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";

const { values } = parseArgs({
  options: {
    payloads: { type: "string", default: "5000" },
    ids: { type: "string", default: "100" },
    single: { type: "boolean", default: false },
  },
});
const payloads = Number(values.payloads);
const ids = Number(values.ids);
const server = await startPrivate();
const client = new Redis(server.url);
const probe = new Redis(server.url);
let executed = 0;
const tq = createTickq({
  redis: ioredisAdapter(client),
  prefix: "o:",
  jobs: {},
  ordered: { index: { perform: () => void (executed += 1) } },
});
const stats = async () => {
  const o: Record<string, number> = {};
  for (const m of (await probe.info("commandstats")).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    o[m[1]!] = Number(m[2]);
  return o;
};
const wave = (w: number) =>
  Array.from({ length: ids }, (_, i) => ({ name: "index" as const, id: `id-${i}`, payload: { w, i } }));
const drain = async (until: number) => {
  while (executed < until) {
    const r = await tq.tick({ batch: 100, concurrency: 100, budgetMs: 60_000 });
    if (r.fetched === 0 && !r.more) throw new Error(`drained ${executed} of ${until}`);
  }
};
await tq.enqueueOrderedBulk(wave(-1)); // warm-up: scripts loaded, the tick registered
await drain(ids);
executed = 0;
const waves = Math.ceil(payloads / ids);
const a = await stats();
for (let w = 0; w < waves; w++) {
  if (values.single) await Promise.all(wave(w).map((j) => tq.enqueueOrdered(j.name, j)));
  else await tq.enqueueOrderedBulk(wave(w));
  await drain((w + 1) * ids);
}
const b = await stats();
const rows = Object.entries(b)
  .map(([k, v]) => [k, (v - (a[k] ?? 0) - (k === "info" ? 1 : 0)) / executed] as const)
  .filter(([, v]) => v > 0.0005)
  .sort((x, y) => y[1] - x[1]);
console.log(
  `${executed} executions of one payload over ${ids} ids, enqueue (${values.single ? "one call a payload" : "one bulk call a wave"}) included; commands an execution:`,
);
console.log(rows.map(([k, v]) => `${k.padEnd(18)} ${v.toFixed(3)}`).join("\n"));
console.log("total", rows.reduce((s, [, v]) => s + v, 0).toFixed(2));
client.disconnect();
probe.disconnect();
await server.stop();
