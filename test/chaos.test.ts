// A short run of `npm run chaos`: worker processes tick nonstop while one is
// SIGKILLed at random and replaced, and jobs fail at random. No job may be
// lost or left behind.
import { describe, expect, it } from "vitest";
import { runChaos } from "../bench/chaos.js";
import { redisUrl } from "./helpers/redis.js";

describe("chaos", () => {
  it("loses no job while workers are SIGKILLed at random", async () => {
    const result = await runChaos({ redisUrl: redisUrl(), jobs: 1_000, workers: 2, killEveryMs: 250, maxJobMs: 40, seconds: 40 });
    expect(result.kills).toBeGreaterThan(0);
    expect(result).toMatchObject({ succeeded: 1_000, lost: 0, dead: 0, leftover: { queued: 0, inflight: 0, retry: 0, scheduled: 0 } });
    expect(result.starts).toBeGreaterThan(1_000); // random failures were retried
  }, 90_000);
});
