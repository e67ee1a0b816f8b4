// With durability { replicas: 1 }, Sentinel failovers of the primary (one
// by SIGKILL, one by SIGSTOP ~3.5 s, so the frozen primary wakes still
// taking writes) lose no acknowledged job or ordered payload, no fence
// goes backwards, and stats().processed counts each job once. The
// full phase, with more of each: npm run chaos:sentinel.
import { describe, expect, it } from "vitest";
import { runSentinelPhase, sentinelProblems } from "../../../bench/chaos/sentinel-phase.js";

describe("Sentinel failovers with durability on", () => {
  it("lose no acknowledged job or payload, keep fences growing and counters exact", async () => {
    const result = await runSentinelPhase({
      jobs: 160,
      orderedPayloads: 80,
      ids: 10,
      keys: 4,
      tickLoops: 2,
      failoversPerKind: 1,
      freezeMs: 3_500,
      durability: true,
      seed: 3,
    });
    expect(sentinelProblems(result)).toEqual([]);
    expect(result).toMatchObject({ lost: 0, payloadsLost: 0, fencesNotGrown: 0, failovers: { kill: 1, freeze: 1 } });
    expect(result.acknowledged).toBe(160);
    expect(result.processed).toBe(160);
    expect(result.runs).toBeGreaterThan(0);
  }, 150_000);
});
