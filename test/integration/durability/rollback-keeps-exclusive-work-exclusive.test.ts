// A Redis under `appendfsync everysec` that crashes forgets about its last
// second (bench/chaos/rollback-redis.ts: SIGKILL, the AOF cut back, restart).
// Tick A claims an ordered id (or the slot of a concurrency-limit-1 key) and
// runs its handler; the rollback forgets the claim; tick B, ticking on the
// restarted Redis as a cron would, must not start that work while A's handler
// still runs (src/lua/lib/tick/restart-hold.lua): A's handler is aborted at
// its next lease extend, and B starts the work only after it ended, within a
// lease of the restart. With `recorded`, the prefix's restart record was
// written before A's claim and survives (a new run_id starts the hold); without,
// the rollback forgets it too (the hold runs from the server's start).
// Private Redis with appendonly on its own port, stopped by PID.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { startRollbackRedis, type RollbackRedis } from "../../../bench/chaos/rollback-redis.js";
import { abortableSleep, sleep } from "../../../bench/chaos/rng.js";
import { startUpstashLocal, type UpstashLocalServer } from "../../../tools/upstash-local/server.js";
import { createTickq, type JobLogger, type OrderedContext } from "../../../src/index.js";
import { onlySelected } from "../../helpers/adapter-names.js";
import { openAdapter, type OpenedAdapter } from "../../helpers/open-adapter.js";

const TOKEN = "rollback-test-token";
const LEASE_MS = 2_000;
const A_HOLDS_MS = 4_000;
const quiet: JobLogger = { info: () => {}, warn: () => {}, error: () => {} };

let server: RollbackRedis;
let rest: UpstashLocalServer;

beforeAll(async () => {
  server = await startRollbackRedis({ appendfsync: "always" });
  rest = await startUpstashLocal({ redisUrl: server.redis.url, token: TOKEN });
}, 30_000);

afterAll(async () => {
  await rest?.close();
  await server?.stop();
});

const adapters = onlySelected([
  { name: "ioredis", open: () => openAdapter("ioredis", { redisUrl: server.redis.url, restUrl: "", restToken: "" }) },
  { name: "upstash", open: () => openAdapter("upstash", { redisUrl: "", restUrl: rest.url, restToken: TOKEN }) },
]);

interface Run {
  tick: "A" | "B";
  from: number;
  to?: number;
  aborted?: number;
}

/** Until Redis has been up a lease: one that may have come back from disk holds exclusive work that long. */
async function pastStartHold(): Promise<void> {
  const admin = new Redis(server.redis.url);
  const info = await admin.info("server");
  admin.disconnect();
  const upMs = Number(/uptime_in_seconds:(\d+)/.exec(info)![1]) * 1_000;
  if (upMs < LEASE_MS + 1_000) await sleep(LEASE_MS + 1_000 - upMs);
}

describe.each(adapters)("a Redis rollback over $name", (adapterCase) => {
  const cases = [
    { kind: "ordered", recorded: true },
    { kind: "limited", recorded: false },
    { kind: "ordered", recorded: false },
    { kind: "limited", recorded: true },
  ] as const;

  it.each(cases)(
    "never starts a forgotten $kind claim while its first tick still runs it (record kept: $recorded)",
    async ({ kind, recorded }) => {
      await pastStartHold();
      const started = performance.now();
      const t = () => Math.round(performance.now() - started);
      const runs: Run[] = [];
      const body = async (tick: Run["tick"], signal: AbortSignal) => {
        const run: Run = { tick, from: t() };
        runs.push(run);
        signal.addEventListener("abort", () => (run.aborted ??= t()), { once: true });
        await abortableSleep(tick === "A" ? A_HOLDS_MS : 50, signal).finally(() => (run.to = t()));
      };
      const prefix = `rollback-${adapterCase.name}-${kind}-${recorded}-${Date.now()}:`;
      const opened: OpenedAdapter[] = [];
      const make = (tick: Run["tick"]) => {
        const o = adapterCase.open();
        opened.push(o);
        return createTickq({
          redis: o.adapter,
          prefix,
          logger: quiet,
          jobs: {
            limited: {
              perform: (_: [], ctx: { signal: AbortSignal }) => body(tick, ctx.signal),
              concurrency: { key: () => "one", limit: 1 },
            },
          },
          ordered: {
            ordered: { perform: (_id: string, _p: unknown[], ctx: OrderedContext) => body(tick, ctx.signal) },
          },
        });
      };
      const a = make("A");
      const b = make("B");
      try {
        if (recorded) await a.tick({ budgetMs: 500, leaseMs: LEASE_MS }); // writes the restart record
        if (kind === "ordered") await a.enqueueOrdered("ordered", { id: "id-1", payload: {} });
        else await a.enqueue("limited", []);
        const beforeClaim = await server.aofSize(); // the enqueue is in it, A's begin and claim are not
        const tickA = a.tick({ budgetMs: 8_000, leaseMs: LEASE_MS }).catch(() => undefined);
        while (runs.length === 0) await sleep(5);
        await sleep(200);
        const rollback = await server.rollbackTo(beforeClaim);
        const restartedAt = t();
        expect(rollback.bytesCut).toBeGreaterThan(0);
        const until = t() + 4 * LEASE_MS;
        while (!runs.some((r) => r.tick === "B") && t() < until) {
          await b.tick({ budgetMs: 3_000, leaseMs: LEASE_MS }).catch(() => undefined);
          await sleep(50);
        }
        await tickA;
        const [first, second] = runs;
        expect(first?.tick).toBe("A");
        expect(first?.aborted).toBeDefined();
        expect(second?.tick).toBe("B"); // the work itself was kept, and runs once the hold ends
        expect(second!.from).toBeGreaterThanOrEqual(first!.to!);
        // A learns at its next extend; B is held a lease from the restart.
        expect(first!.aborted! - restartedAt).toBeLessThan(LEASE_MS);
        expect(second!.from - restartedAt).toBeLessThan(3 * LEASE_MS);
      } finally {
        for (const o of opened) await o.close();
      }
    },
    40_000,
  );
});
