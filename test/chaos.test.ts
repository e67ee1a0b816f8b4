// A short run of `npm run chaos`, over both adapters: tick workers (child
// processes) run jobs on a private Redis while it is faulted — CLIENT KILL,
// CLIENT PAUSE, SIGKILL + restart from its AOF, worker SIGKILL, replies
// dropped after Redis ran the command (TCP) and responses dropped after the
// REST server ran it (HTTP). The ledger lives on the test Redis, never
// faulted. No job may be lost or stuck, no flow key (while-executing,
// until-executed, coalesce, concurrency limit, rate limit) may see more
// live runs than its limit, and the counters must match the ledger.
import { describe, expect, it } from "vitest";
import { runChaos } from "../bench/chaos.js";
import { redisUrl } from "./helpers/redis.js";

describe("chaos", () => {
  it("loses no job and miscounts nothing under every fault, over ioredis and @upstash/redis", async () => {
    const results = await runChaos({
      jobs: 400,
      workers: 3,
      adapters: ["ioredis", "upstash"],
      perKind: 3,
      seconds: 8,
      seed: 7,
      ledgerUrl: redisUrl(),
      settleSeconds: 15,
      leaseMs: 1_000,
      budgetMs: 2_000,
    });
    for (const r of results) {
      expect(r.problems, r.adapter).toEqual([]);
      expect({ adapter: r.adapter, lost: r.lost, stuck: r.stuck, overlaps: r.overlaps, dead: r.dead }).toEqual({ adapter: r.adapter, lost: 0, stuck: 0, overlaps: 0, dead: r.deadExpected });
      for (const kind of ["exclusive", "limited", "rated", "once", "coalesced"] as const) expect(r.kinds[kind], kind).toBeGreaterThan(0);
      expect(r.merged, "duplicates of a unique key merged at enqueue").toBeGreaterThan(0);
      expect(r.succeeded + r.dead + r.merged + r.ownAnswer).toBe(r.jobs);
      expect(r.processed).toBe(r.ledgerFinished);
      expect(r.processed).toBe(r.plannedProcessed);
      expect(r.failed).toBe(r.ledgerFailed);
      const kinds = r.adapter === "upstash" ? 6 : 5;
      expect(Object.keys(r.faults)).toHaveLength(kinds);
      for (const [kind, n] of Object.entries(r.faults)) expect(n, `${r.adapter}: ${kind}`).toBeGreaterThanOrEqual(1);
    }
  }, 90_000);
});
