// A Redis rollback (bench/chaos/rollback-redis.ts: SIGKILL, the AOF cut back,
// restart) that keeps a tick's lease but forgets a workflow run it claimed
// later in the tick: the tick's next workflow call must not go on as if it
// held the run. Its lease was taken on the Redis before the restart, so the
// call answers the lease lost (src/lua/lib/tick/restart-hold.lua), as extend
// and step do, and commits nothing: a commit of a run whose earlier records
// the rollback may have forgotten would store a step over a gap. The tick
// reports leaseLost (no extend came: its calls came more often than
// cancelCheckMs), no step record is written, and once the hold ends a tick
// runs the forgotten step again and both runs complete, each step's result
// stored once. Before, the call committed the run it still held and refused
// the other with the lease taken as held: the tick reported neither.
// Private Redis with appendonly on its own port, stopped by PID.
import { afterAll, beforeAll, expect, it } from "vitest";
import { Redis } from "ioredis";
import { startRollbackRedis, type RollbackRedis } from "../../../bench/chaos/rollback-redis.js";
import { sleep } from "../../../bench/chaos/rng.js";
import { createTickq, type JobLogger } from "../../../src/index.js";
import { openAdapter } from "../../helpers/open-adapter.js";

/** Long enough that no extend goes during the tick (every min(leaseMs / 3, cancelCheckMs)), short for the hold. */
const LEASE_MS = 6_000;
const warnings: string[] = [];
const logger: JobLogger = { info: () => {}, warn: (m) => void warnings.push(m), error: () => {} };

let server: RollbackRedis;

beforeAll(async () => {
  server = await startRollbackRedis({ appendfsync: "always" });
}, 30_000);

afterAll(async () => {
  await server?.stop();
});

/** A gate a step waits at: `opened` once the test opens it, `reached` once a step came to it. */
function gate() {
  let open!: () => void;
  let reach!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (reach = resolve));
  return { open, opened, reach, reached };
}

it("a tick whose later claim a rollback forgot reports its lease lost and commits nothing; the steps run again once", async () => {
  const prefix = `rollback-wf-${Date.now()}:`;
  const o = openAdapter("ioredis", { redisUrl: server.redis.url, restUrl: "", restToken: "" });
  const admin = new Redis(server.redis.url);
  admin.on("error", () => {});
  const ran: string[] = [];
  const first = gate(); // r0's step a, claimed at begin
  const later = gate(); // r1's step a, claimed by a workflow call after the AOF's size is taken
  const tq = createTickq({
    redis: o.adapter,
    prefix,
    logger,
    jobs: {},
    workflows: {
      two: {
        run: async (input: { id: string }, step) => [
          await step.run("a", async () => {
            ran.push(`${input.id}:a`);
            const g = input.id === "r0" ? first : later;
            g.reach();
            await g.opened;
            return `${input.id}-a`;
          }),
          await step.run("b", async () => {
            ran.push(`${input.id}:b`);
            // r0's b waits until r1's a is done: the tick's next call carries both commits.
            if (input.id === "r0") await later.opened;
            return `${input.id}-b`;
          }),
        ],
      },
    },
  });
  try {
    // The restart may come in the second the first Redis started (LASTSAVE alike): it is told apart all the same
    // (src/lua/lib/tick/restart-hold.lua `sure`). One unseen is test/integration/workflows/refused-commit-is-reported.test.ts's case.
    await tq.workflows.start("two", { id: "r0" }, { id: "r0" });
    const ticking = tq.tick({ budgetMs: 4_000, leaseMs: LEASE_MS, cancelCheckMs: 60_000 });
    await first.reached;
    await tq.workflows.start("two", { id: "r1" }, { id: "r1" });
    const beforeClaim = await server.aofSize(); // r1's start is in it; the call that claims it is not
    first.open(); // r0's commit of a goes, and the same call claims r1
    await later.reached;
    const rollback = await server.rollbackTo(beforeClaim);
    expect(rollback.bytesCut).toBeGreaterThan(0);
    later.open();
    const report = await ticking;
    expect(report.leaseLost).toBe(true);
    expect(report.workflows?.lost).toBe(2); // r0's commit of b and r1's of a: neither stored
    expect(warnings.filter((m) => m.includes("refused"))).toEqual([]); // leaseLost says it
    // Nothing the tick ran after the restart is stored: r1's claim is gone, and no record of r0 lands beyond
    // what the rollback kept (r0's a, committed before the AOF's size was taken, or not).
    expect(await admin.hexists(`${prefix}wf:steps:r1`, "a")).toBe(0);
    expect(await admin.hexists(`${prefix}wf:steps:r0`, "b")).toBe(0);
    expect(await admin.hget(`${prefix}wf:run:r1`, "owner")).toBeNull();

    // Once the hold (a lease from the restart) and the dead tick's lease end, ticks finish both runs.
    const until = Date.now() + 4 * LEASE_MS;
    while (Date.now() < until) {
      const [s0, s1] = await Promise.all([tq.workflows.get("r0"), tq.workflows.get("r1")]);
      if (s0?.status === "completed" && s1?.status === "completed") break;
      await tq.tick({ budgetMs: 1_000, leaseMs: LEASE_MS }).catch(() => undefined);
      await sleep(200);
    }
    expect(await tq.workflows.result("r0", { timeoutMs: 100 })).toEqual(["r0-a", "r0-b"]);
    expect(await tq.workflows.result("r1", { timeoutMs: 100 })).toEqual(["r1-a", "r1-b"]);
    // r1's a ran before the rollback and once again after; r0's a at most twice too; each b ran after it.
    const count = (unit: string) => ran.filter((u) => u === unit).length;
    expect(count("r1:a")).toBe(2);
    expect(count("r0:a")).toBeLessThanOrEqual(2);
    expect(count("r1:b")).toBe(1);
    expect(count("r0:b")).toBeLessThanOrEqual(2);
  } finally {
    admin.disconnect();
    await o.close();
  }
}, 60_000);
