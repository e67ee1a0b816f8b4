// A short run of `npm run chaos`, over both adapters: tick workers (child
// processes) run jobs on a private Redis while it is faulted — CLIENT KILL,
// CLIENT PAUSE, SIGKILL + restart from its AOF, worker SIGKILL, replies
// dropped after Redis ran the command (TCP) and responses dropped after the
// REST server ran it (HTTP). The ledger lives on the test Redis, never
// faulted. No job may be lost or stuck, no flow key (while-executing,
// until-executed, coalesce, concurrency limit, rate limit) may see more
// live runs than its limit, the counters must match the ledger and the
// planned attempts, and every fault kind must be injected as often as asked:
// the judge's checks (bench/chaos/verify.ts), the same `npm run chaos` runs.
import { describe, expect, it } from "vitest";
import { runChaos } from "../../../bench/chaos.js";
import { redisUrl } from "../../helpers/redis.js";

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
      // The poison phase's deaths take a lease each: test/integration/tick/poison-job-dies-alone.test.ts covers it here.
      extraPhases: false,
    });
    expect(results.map((c) => c.name)).toEqual(["ioredis", "upstash"]);
    for (const c of results) expect(c.problems, c.name).toEqual([]);
  }, 90_000);
});
