// test_clock.lua run twice with the same arguments: a claim marks the prefix once (the replay
// finds its own mark), an advance takes the target offset so a replay moves no clock and no TTL
// again, and a clear deletes nothing more. Replies match but for nowMs, which is Redis' time.
import { describe, expect, it } from "vitest";
import { test_clock } from "../../../src/protocol/test-clock.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";

describe.each(adapterCases)("test_clock.lua run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "test-clock-replay");

  it("claims, advances and clears once", async () => {
    const { call } = scriptCalls(h);
    const clock = { clock: "testclock" };
    const twice = async (op: "claim" | "advance" | "clear", offsetMs: number) => {
      const first = await call(test_clock, clock, { op, offsetMs });
      const after = await snapshot(h.redis, h.prefix);
      const ttl = await h.redis.pttl(`${h.prefix}kept`);
      const second = await call(test_clock, clock, { op, offsetMs });
      expect(await snapshot(h.redis, h.prefix)).toEqual(after);
      expect(await h.redis.pttl(`${h.prefix}kept`)).toBeLessThanOrEqual(ttl);
      expect(await h.redis.pttl(`${h.prefix}kept`)).toBeGreaterThan(ttl - 5_000);
      return [first, second];
    };
    const [claimed, reclaimed] = await twice("claim", 0);
    expect([claimed?.state, reclaimed?.state]).toEqual(["claimed", "test"]);
    await h.redis.set(`${h.prefix}kept`, "x", "PX", 3_600_000);
    const [advanced, again] = await twice("advance", 600_000);
    expect([advanced?.detail, again?.detail]).toEqual(["600000", "600000"]);
    expect(again!.nowMs - advanced!.nowMs).toBeLessThan(5_000);
    expect(await h.redis.pttl(`${h.prefix}kept`)).toBeLessThanOrEqual(3_000_000);
    const [cleared, recleared] = await twice("clear", 0);
    expect([cleared?.detail, recleared?.state]).toEqual(["2", "absent"]);
  });
});
