// A short run of `npm run chaos`, over both adapters: tick workers (child
// processes) run jobs on a private Redis while it is faulted — CLIENT KILL,
// CLIENT PAUSE, SIGKILL + restart from its AOF, worker SIGKILL, replies
// dropped after Redis ran the command (TCP) and responses dropped after the
// REST server ran it (HTTP). The ledger lives on the test Redis, never
// faulted. No job may be lost or stuck, and the counters must match it.
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
      expect({ adapter: r.adapter, lost: r.lost, stuck: r.stuck, dead: r.dead }).toEqual({ adapter: r.adapter, lost: 0, stuck: 0, dead: r.deadExpected });
      expect(r.succeeded + r.dead).toBe(r.jobs);
      expect(r.processed).toBe(r.ledgerFinished);
      expect(r.processed).toBe(r.plannedProcessed);
      expect(r.failed).toBe(r.ledgerFailed);
      const kinds = r.adapter === "upstash" ? 6 : 5;
      expect(Object.keys(r.faults)).toHaveLength(kinds);
      for (const [kind, n] of Object.entries(r.faults)) expect(n, `${r.adapter}: ${kind}`).toBeGreaterThanOrEqual(1);
    }
  }, 90_000);
});
