// npx tsx bench/rollback-overlap.ts [-- --kind ordered|limited]
// Reproduces, step by step, the overlap the rollback phase of `npm run chaos`
// finds now and then (bench/chaos/rollback-phase.ts): a Redis under
// `appendfsync everysec` that forgets its last second forgets a claim whose
// holder is still running. Tick A claims an ordered id (or the slot of a
// concurrency-limit-1 key) and runs its handler; Redis is rolled back to a
// moment before that claim (bench/chaos/rollback-redis.ts); tick B, on the
// restarted Redis, finds the work unclaimed and starts it while A's handler
// still runs. Prints when each handler ran and when A's signal aborted, and
// exits 1 if the two ran at once. The same steps with Redis restarted and
// nothing cut show no overlap.
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { createTickq, type OrderedContext } from "../src/index.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { abortableSleep, sleep } from "./chaos/rng.js";
import { startRollbackRedis } from "./chaos/rollback-redis.js";
import { quietLogger } from "./chaos/worker-loop.js";

const { values } = parseArgs({
  options: { kind: { type: "string", default: "ordered" }, cut: { type: "string", default: "1" } },
});
const kind = values.kind === "limited" ? "limited" : "ordered";
const HOLD_MS = 3_000;
const server = await startRollbackRedis();
const started = Date.now();
const t = () => Date.now() - started;
const runs: { tick: string; from: number; to?: number; aborted?: number }[] = [];
const body = async (tick: string, signal: AbortSignal) => {
  const run: (typeof runs)[number] = { tick, from: t() };
  runs.push(run);
  signal.addEventListener("abort", () => (run.aborted ??= t()), { once: true });
  await abortableSleep(HOLD_MS, signal).finally(() => (run.to = t()));
};
const make = (tick: string) => {
  const client = new Redis(server.redis.url, { maxRetriesPerRequest: null });
  client.on("error", () => {});
  const tq = createTickq({
    redis: ioredisAdapter(client),
    prefix: "overlap:",
    jobs: {
      limited: {
        perform: (_: [], ctx: { signal: AbortSignal }) => body(tick, ctx.signal),
        concurrency: { key: () => "one", limit: 1 },
      },
    },
    ordered: { ordered: { perform: (_id: string, _p: unknown[], ctx: OrderedContext) => body(tick, ctx.signal) } },
    logger: quietLogger,
  });
  return { tq, client };
};
const a = make("A");
const b = make("B");
try {
  if (kind === "ordered") await a.tq.enqueueOrdered("ordered", { id: "id-1", payload: {} });
  else await a.tq.enqueue("limited", []);
  await sleep(300); // the enqueue is in a sample the rollback keeps
  const tickA = a.tq.tick({ budgetMs: 6_000, leaseMs: 3_000 }).catch((e: Error) => e.message);
  while (runs.length === 0) await sleep(5);
  await sleep(200);
  const since = t() - runs[0]!.from + 150; // back to before A's claim
  const rollback = await server.rollback(values.cut === "0" ? 0 : since);
  console.log(`t=${t()} rolled back: ${rollback.bytesCut} bytes cut, Redis down ${rollback.downMs} ms`);
  const tickB = b.tq.tick({ budgetMs: 6_000, leaseMs: 3_000 }).catch((e: Error) => e.message);
  await Promise.all([tickA, tickB]);
  for (const r of runs)
    console.log(
      `tick ${r.tick}: handler ran ${r.from}–${r.to} ms${r.aborted ? `, its signal aborted at ${r.aborted}` : ""}`,
    );
  const [x, y] = runs;
  const overlapped = x && y && x.tick !== y.tick && y.from < (x.to ?? Number.POSITIVE_INFINITY);
  console.log(
    overlapped ? `OVERLAP: B started the ${kind} work at ${y.from} ms while A ran it until ${x.to} ms` : "no overlap",
  );
  process.exitCode = overlapped ? 1 : 0;
} finally {
  a.client.disconnect();
  b.client.disconnect();
  await server.stop();
}
