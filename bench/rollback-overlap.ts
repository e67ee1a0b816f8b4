// npx tsx bench/rollback-overlap.ts [-- --kind ordered|limited] [--cut 0]
// Shows, step by step, what a Redis under `appendfsync everysec` that forgets
// its last second does to a claim whose holder is still running
// (bench/chaos/rollback-phase.ts runs it at scale). Tick A claims an ordered id
// (or the slot of a concurrency-limit-1 key) and runs its handler; Redis is
// rolled back to a moment before that claim (bench/chaos/rollback-redis.ts);
// tick B, on the restarted Redis, finds the work unclaimed. Before the restart
// hold (src/lua/lib/tick/restart-hold.lua) B started it while A's handler still
// ran; now B's ticks hand out nothing exclusive for a lease after the restart,
// and A's next lease extend aborts its handler. Prints when each handler ran,
// when A's signal aborted and how many ticks B made, and exits 1 if the two ran
// at once. `--cut 0` restarts Redis and cuts nothing.
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
const LEASE_MS = 3_000;
const server = await startRollbackRedis();
// A Redis that just started holds exclusive work for a lease (it may have come
// back from disk): wait it out, so that A starts at once.
await sleep(LEASE_MS + 100);
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
  const tickA = a.tq.tick({ budgetMs: 6_000, leaseMs: LEASE_MS }).catch((e: Error) => e.message);
  while (runs.length === 0) await sleep(5);
  await sleep(200);
  const since = t() - runs[0]!.from + 150; // back to before A's claim
  const rollback = await server.rollback(values.cut === "0" ? 0 : since);
  console.log(`t=${t()} rolled back: ${rollback.bytesCut} bytes cut, Redis down ${rollback.downMs} ms`);
  // B ticks as a cron would, every 100 ms, until it has run the work (or 10 s passed).
  let ticksB = 0;
  const tickB = (async () => {
    const until = t() + 10_000;
    while (!runs.some((r) => r.tick === "B") && t() < until) {
      ticksB++;
      await b.tq.tick({ budgetMs: 6_000, leaseMs: LEASE_MS }).catch((e: Error) => e.message);
      await sleep(100);
    }
  })();
  await Promise.all([tickA, tickB]);
  console.log(`tick B ran ${ticksB} ticks`);
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
