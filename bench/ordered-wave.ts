// Where a wave of the ordered "one each" shape spends its wall time (issue 46): one payload per id
// over `--ids` ids, enqueued with one enqueueOrderedBulk, then ticks of batch 100 until it ran. For
// each script call: its wall time from send to reply, and Redis' own time for it (SLOWLOG at 0 on a
// private redis-server); the rest of the wave is JS in this process. Medians over `--waves` waves
// after warm-up waves. Wall-clock figures: run it on a quiet machine, compare within one run.
//   npx tsx bench/ordered-wave.ts [--waves 50] [--ids 100]
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { createTickq } from "../src/index.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { scripts } from "../src/lua/index.js";
import { scriptSha } from "../src/redis/script-sha.js";
import { startPrivate } from "../src/platforms/node/find-redis.js";

const { values } = parseArgs({
  options: { waves: { type: "string", default: "50" }, ids: { type: "string", default: "100" } },
});
const waves = Number(values.waves);
const ids = Number(values.ids);

const server = await startPrivate();
const redis = new Redis(server.url);
const admin = new Redis(server.url);
const names = new Map<string, string>();
for (const [name, script] of Object.entries(scripts)) names.set(await scriptSha(script), name);

interface Call {
  name: string;
  sent: number;
  replied: number;
}
let calls: Call[] = [];
const adapter = ioredisAdapter(redis);
const timed: typeof adapter = {
  ...adapter,
  evalsha: async (sha, keys, args) => {
    const call = { name: names.get(sha) ?? sha, sent: performance.now(), replied: 0 };
    const reply = await adapter.evalsha(sha, keys, args);
    call.replied = performance.now();
    calls.push(call);
    return reply;
  },
};
let executed = 0;
const tq = createTickq({
  redis: timed,
  prefix: "ow:",
  jobs: {},
  ordered: { index: { perform: () => void (executed += 1) } },
});
const wave = (w: number) =>
  Array.from({ length: ids }, (_, i) => ({ name: "index" as const, id: `id-${i}`, payload: { w, i } }));

interface WaveFigures {
  wall: number;
  byCall: Map<string, { wall: number; redis: number; count: number }>;
  ticks: number;
}

async function runWave(w: number): Promise<WaveFigures> {
  calls = [];
  await admin.slowlog("RESET");
  const start = performance.now();
  await tq.enqueueOrderedBulk(wave(w));
  const until = executed + ids;
  let ticks = 0;
  while (executed < until) {
    const report = await tq.tick({ batch: 100, concurrency: 100, budgetMs: 600_000 });
    ticks++;
    if (report.fetched === 0 && !report.more) throw new Error("the drain stopped short");
  }
  const wall = performance.now() - start;
  const log = (await admin.slowlog("GET", 1000)) as [number, number, number, string[]][];
  const redisUs = log
    .filter((e) => e[3][0]?.toLowerCase() === "evalsha")
    .reverse()
    .map((e) => e[2]);
  const byCall = new Map<string, { wall: number; redis: number; count: number }>();
  calls.forEach((c, k) => {
    const row = byCall.get(c.name) ?? { wall: 0, redis: 0, count: 0 };
    row.wall += c.replied - c.sent;
    row.redis += (redisUs[k] ?? 0) / 1000;
    row.count += 1;
    byCall.set(c.name, row);
  });
  return { wall, byCall, ticks };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  await admin.config("SET", "slowlog-log-slower-than", "0");
  await admin.config("SET", "slowlog-max-len", "1000");
  for (let w = 0; w < 20; w++) await runWave(-20 + w);
  const figures: WaveFigures[] = [];
  for (let w = 0; w < waves; w++) figures.push(await runWave(w));
  const callNames = [...new Set(figures.flatMap((f) => [...f.byCall.keys()]))];
  const rows = callNames.map((name) => {
    const of = (pick: (r: { wall: number; redis: number; count: number }) => number) =>
      median(figures.map((f) => (f.byCall.has(name) ? pick(f.byCall.get(name)!) : 0)));
    return {
      call: name,
      "calls a wave": of((r) => r.count),
      "wall ms": of((r) => r.wall).toFixed(3),
      "Redis ms": of((r) => r.redis).toFixed(3),
    };
  });
  const wall = median(figures.map((f) => f.wall));
  const inCalls = median(figures.map((f) => [...f.byCall.values()].reduce((s, r) => s + r.wall, 0)));
  console.log(`a wave of ${ids} ids, one payload each (median of ${waves} waves): ${wall.toFixed(3)} ms`);
  console.table(rows);
  console.log(
    `in script calls ${inCalls.toFixed(3)} ms; the rest (JS between calls) ${(wall - inCalls).toFixed(3)} ms; ticks a wave ${median(figures.map((f) => f.ticks))}`,
  );
} finally {
  redis.disconnect();
  admin.disconnect();
  await server.stop();
}
