// A real Redis restart (SIGKILL, the AOF kept to the moment before, restart: bench/chaos/rollback-redis.ts)
// in the middle of a tick running a plain job, an ordered id and a workflow step at once. The tick's lease
// was taken before the restart (src/lua/lib/tick/restart-hold.lua): it reports its lease lost, its workflow
// commit is not stored (workflows.lost, no warning of a refused commit), and once the hold ends every piece
// of work completes: the ordered id never runs beside itself, the workflow's results are stored once.
// Private Redis with appendonly on its own port, stopped by PID.
import { afterAll, beforeAll, expect, it } from "vitest";
import { Redis } from "ioredis";
import { startRollbackRedis, type RollbackRedis } from "../../../bench/chaos/rollback-redis.js";
import { sleep } from "../../../bench/chaos/rng.js";
import { createTickq, type JobLogger } from "../../../src/index.js";
import { openAdapter } from "../../helpers/open-adapter.js";

const LEASE_MS = 3_000;
let server: RollbackRedis;

beforeAll(async () => {
  server = await startRollbackRedis({ appendfsync: "always" });
}, 30_000);

afterAll(async () => {
  await server?.stop();
});

it("a tick spanning a restart with a plain job, an ordered id and a workflow step reports its lease lost; all completes after the hold", async () => {
  const prefix = `restart-mixed-${Date.now()}:`;
  const o = openAdapter("ioredis", { redisUrl: server.redis.url, restUrl: "", restToken: "" });
  const admin = new Redis(server.redis.url);
  admin.on("error", () => {});
  const warnings: string[] = [];
  const logger: JobLogger = { info: () => {}, warn: (m) => void warnings.push(m), error: () => {} };
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let arrived = 0;
  let allArrived!: () => void;
  const arrivedAll = new Promise<void>((resolve) => (allArrived = resolve));
  const arrive = async () => {
    if (++arrived === 3) allArrived();
    await gate;
  };
  const ran: string[] = [];
  let orderedRunning = 0;
  let orderedOverlap = false;
  const tq = createTickq({
    redis: o.adapter,
    prefix,
    logger,
    jobs: {
      plain: {
        perform: async () => {
          ran.push("plain");
          await arrive();
        },
      },
    },
    ordered: {
      ordered: {
        perform: async (id: string) => {
          if (++orderedRunning > 1) orderedOverlap = true;
          ran.push(`ordered ${id}`);
          try {
            await arrive();
          } finally {
            orderedRunning--;
          }
        },
      },
    },
    workflows: {
      two: {
        run: async (_: null, step) => [
          await step.run("a", async () => {
            ran.push("wf a");
            await arrive();
            return "a";
          }),
          await step.run("b", () => "b"),
        ],
      },
    },
  });
  try {
    await tq.enqueue("plain", []);
    await tq.enqueueOrdered("ordered", { id: "o1", payload: 1 });
    await tq.workflows.start("two", null, { id: "w1" });
    const ticking = tq.tick({ budgetMs: 5_000, leaseMs: LEASE_MS, cancelCheckMs: 100 });
    await arrivedAll;
    await server.rollbackTo(await server.aofSize()); // a restart that loses nothing acknowledged
    open(); // each handler returns, after the restart
    const report = await ticking;
    expect(report.leaseLost).toBe(true);
    // The step's commit came from a lease taken before the restart: not stored (its run goes back).
    expect(report.workflows).toMatchObject({ completed: 0, steps: 0, lost: 1, abandoned: 0 });
    expect(warnings.filter((m) => m.includes("refused"))).toEqual([]);

    const until = Date.now() + 6 * LEASE_MS;
    while (Date.now() < until) {
      const run = await tq.workflows.get("w1");
      if (run?.status === "completed" && ran.includes("plain") && ran.filter((r) => r === "ordered o1").length > 0) {
        const left = await tq.tick({ budgetMs: 1_000, leaseMs: LEASE_MS });
        if (!left.more && left.fetched === 0) break;
      } else await tq.tick({ budgetMs: 1_000, leaseMs: LEASE_MS }).catch(() => undefined);
      await sleep(200);
    }
    expect(await tq.workflows.result("w1", { timeoutMs: 100 })).toEqual(["a", "b"]);
    expect(orderedOverlap).toBe(false);
    expect(ran.filter((r) => r === "ordered o1").length).toBeLessThanOrEqual(2);
  } finally {
    open();
    admin.disconnect();
    await o.close();
  }
}, 60_000);
