// What one workflow call carries of the commits queued (src/workflows/call-room.ts): every run a tick
// holds when their records are small (at appendfsync always each call is an fsync), cut by bytes when not.
import { describe, expect, it } from "vitest";
import { CALL_CHARS, CALL_RUNS, callShare } from "../../src/workflows/call-room.js";
import type { Commit } from "../../src/workflows/execute.js";

const queued = (n: number, recordChars: number, extra = "") =>
  Array.from({ length: n }, (_, i) => ({
    commit: {
      id: `r${i}`,
      fence: "1",
      disposition: "c",
      extra,
      steps: [{ name: "s", record: "x".repeat(recordChars) }],
      parks: [],
    } satisfies Commit,
  }));

describe("a workflow call's share of the queued commits", () => {
  it("carries a batch of 100 small commits in one call, and no more than CALL_RUNS", () => {
    expect(CALL_RUNS).toBe(100);
    expect(callShare(queued(100, 120))).toBe(100);
    expect(callShare(queued(250, 120))).toBe(CALL_RUNS);
    expect(callShare([])).toBe(0);
  });

  it("stops before the commit that would pass CALL_CHARS of records and outputs", () => {
    const big = 250 * 1024;
    expect(callShare(queued(10, big))).toBe(Math.floor(CALL_CHARS / big));
    expect(callShare(queued(10, 10, "y".repeat(big)))).toBe(Math.floor(CALL_CHARS / (big + 10)));
  });

  it("always carries the first commit, whatever its size", () => {
    expect(callShare(queued(3, CALL_CHARS * 2))).toBe(1);
  });
});
