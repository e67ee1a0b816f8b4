// The pages of a run index that `workflows.list` (workflow_list) and `workflows.check` (workflow_live)
// read: at most 1,000 index entries a call, so a rare name answers a short page whose next offset goes
// on past what was read; and live runs whose step records pass 1 MiB together end a page early.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";

describe.each(adapterCases)("a page of a run index over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-index-pages");
  const { run } = scriptCalls(h);

  /** Runs r0…r(n-1) in the all-runs index, r0 the oldest; `nameOf(i)` names each, all running. */
  async function addRuns(n: number, nameOf: (i: number) => string, steps?: (i: number) => Record<string, string>) {
    const write = h.redis.pipeline();
    for (let i = 0; i < n; i += 1) {
      write.zadd(`${h.prefix}wf:all`, i + 1, `r${i}`);
      write.hset(`${h.prefix}wf:run:r${i}`, { name: nameOf(i), status: "running", created: i, updated: i });
      if (steps) write.hset(`${h.prefix}wf:steps:r${i}`, steps(i));
    }
    await write.exec();
  }

  it("a rare name: a short page after 1,000 entries, with the offset to go on from", async () => {
    await addRuns(1_001, (i) => (i === 0 ? "rare" : "common"));
    const first = (await run(protocol.workflow_list.script, ["wf:all"], ["rare", 0, 10])) as [number, unknown[]];
    expect(first).toEqual([1_000, []]);
    const second = (await run(protocol.workflow_list.script, ["wf:all"], ["rare", 1_000, 10])) as [number, unknown[]];
    expect(second[0]).toBe(-1);
    expect(second[1]).toEqual([["r0", "rare", "running", "0", "0"]]);
  });

  it("a full page ends at its limit, and the last page says -1", async () => {
    await addRuns(5, () => "wf");
    const first = (await run(protocol.workflow_list.script, ["wf:all"], ["", 0, 3])) as [number, string[][]];
    expect(first[0]).toBe(3);
    expect(first[1].map((r) => r[0])).toEqual(["r4", "r3", "r2"]);
    const last = (await run(protocol.workflow_list.script, ["wf:all"], ["", 3, 3])) as [number, string[][]];
    expect(last[0]).toBe(-1);
    expect(last[1].map((r) => r[0])).toEqual(["r1", "r0"]);
  });

  it("live runs whose records pass 1 MiB end the page early, one run at least", async () => {
    const record = "x".repeat(600 * 1024);
    await addRuns(
      3,
      () => "wf",
      () => ({ s1: record }),
    );
    const first = (await run(protocol.workflow_live.script, ["wf:all"], ["", 0, 10])) as [number, string[][]];
    expect(first[0]).toBe(2);
    expect(first[1].map((r) => r[0])).toEqual(["r2", "r1"]);
    const last = (await run(protocol.workflow_live.script, ["wf:all"], ["", 2, 10])) as [number, string[][]];
    expect(last[0]).toBe(-1);
    expect(last[1].map((r) => r[0])).toEqual(["r0"]);
  });
});
