// A short ordered run of the fault suite (bench/chaos-ordered.ts), over both
// adapters: ordered workers (child processes) run ids on a private Redis
// while it is faulted — CLIENT KILL, CLIENT PAUSE, SIGKILL + restart from its
// AOF, worker SIGKILL, dropped replies (TCP) and responses (HTTP). The
// ledger lives on the test Redis, never faulted. No payload may be lost, no
// id may have two live holders, every fence must grow, every run must take
// its payloads in enqueue order, nothing may be left,
// every fault kind injected as often as asked (ORDERED_CHECKS, the rows
// `npm run chaos` prints).
import { describe, expect, it } from "vitest";
import { runOrderedChaos } from "../../../bench/chaos-ordered.js";
import { redisUrl } from "../../helpers/redis.js";

describe("chaos with ordered jobs", () => {
  it("loses no payload, never overlaps an id, every fence grows and every run is in enqueue order, over ioredis and @upstash/redis", async () => {
    const results = await runOrderedChaos({
      payloads: 600,
      ids: 40,
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
    expect(results.map((r) => r.adapter)).toEqual(["ioredis", "upstash"]);
    for (const r of results) expect(r.problems, r.adapter).toEqual([]);
  }, 90_000);
});
