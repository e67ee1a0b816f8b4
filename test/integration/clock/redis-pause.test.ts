// A Redis pause shorter than the lease, during a long exclusive run (a
// while-executing job and an ordered id). The guard cannot confirm the
// lease in time and stops both runs before the lease could expire: right,
// since another tick might soon hold them. No deadline passed and the
// handlers did not fail: the runs go back uncounted and run again, never
// dead as TickqDeadlineExceeded or poison.
// A private redis-server, since CLIENT PAUSE stops every client.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUpstashLocal, type UpstashLocalServer } from "../../../tools/upstash-local/server.js";
import { createTickq, type JobContext, type OrderedContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { openAdapter } from "../../helpers/open-adapter.js";
import { startPrivateRedis, type PrivateRedis } from "../../helpers/private-redis.js";

const LEASE_MS = 1_500;
const PAUSE_MS = 1_300; // shorter than the lease, longer than the guard's margin (a quarter of it)
const RUN_MS = 2_500;

describe.each(adapterCases)("a short Redis pause over $name", (adapterCase) => {
  let server: PrivateRedis;
  let rest: UpstashLocalServer;
  let direct: Redis;
  beforeAll(async () => {
    server = await startPrivateRedis();
    rest = await startUpstashLocal({ redisUrl: server.url, token: "pause-token-of-enough-length-0123" });
    direct = new Redis(server.url);
  });
  afterAll(async () => {
    direct.disconnect();
    await rest.close();
    await server.stop();
  });

  it("stops an exclusive run for a lease in doubt, then runs it again: no deadline, no poison, nothing dead", async () => {
    const opened = openAdapter(adapterCase.name, {
      redisUrl: server.url,
      restUrl: rest.url,
      restToken: "pause-token-of-enough-length-0123",
    });
    const logged: string[] = [];
    const reasons: string[] = [];
    const done: string[] = [];
    let paused = false;
    const hold = async (what: string, signal: AbortSignal) => {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, RUN_MS);
        signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
        // One pause, during the first runs of both.
        if (!paused) {
          paused = true;
          setTimeout(() => void direct.call("CLIENT", "PAUSE", String(PAUSE_MS), "ALL"), 300);
        }
      });
      if (signal.aborted) {
        reasons.push((signal.reason as Error).name);
        throw signal.reason;
      }
      done.push(what);
    };
    const tq = createTickq({
      redis: opened.adapter,
      prefix: "pause:",
      // One interruption would be enough to condemn a job or an id.
      maxResurrections: 1,
      logger: { info: () => {}, warn: (m) => logged.push(m), error: (m) => logged.push(m) },
      jobs: { once: { perform: (_args: [], ctx: JobContext) => hold("key", ctx.signal), uniqueKey: () => "k" } },
      ordered: { work: { perform: (_id: string, _p: unknown[], ctx: OrderedContext) => hold("id", ctx.signal) } },
    });
    try {
      await tq.enqueue("once", [], { unique: "while-executing" });
      await tq.enqueueOrdered("work", { id: "a", payload: 1, score: 1 });
      const reports = [];
      for (let i = 0; i < 10 && done.length < 2; i++)
        reports.push(await tq.tick({ leaseMs: LEASE_MS, concurrency: 2, budgetMs: 8_000 }));
      expect(done.sort()).toEqual(["id", "key"]);
      // The lease may run out while Redis is paused (the extend sent meanwhile runs after its TTL passed),
      // and the tick's finish then says so (leaseLost); what must hold is that no run failed or died.
      expect(reports.every((r) => r.dead === 0 && r.failed === 0)).toBe(true);
      const stats = await tq.stats();
      expect(stats).toMatchObject({ dead: 0, failed: 0, inflight: 0 });
      expect(stats.ordered.work).toEqual({ waiting: 0, running: 0, payloads: 0, dead: 0 });
      expect(await direct.exists("pause:interruptions", "pause:resurrections", "pause:o:work:resurrections")).toBe(0);
      expect(reasons).toEqual(["TickqLeaseInDoubt", "TickqLeaseInDoubt"]);
      expect(logged.filter((m) => /lease not confirmed/.test(m))).toHaveLength(1);
    } finally {
      await opened.close();
      await direct.flushall();
    }
  });
});
