// A run's holder is whoever claimed it last, with the fence of that claim:
// a commit that lost the run (cancelled, or reclaimed from a dead tick)
// writes nothing; fences grow even when Redis forgets the fence counter; a
// run is claimed by one tick at a time however many ask at once; and a
// cancel of a run whose tick died leaves no note for that tick behind.
// Through the scripts, as the ticks call them.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import type { Commit } from "../../../src/workflows/execute.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";

const RECORD = JSON.stringify({ status: "completed", seq: 0, attempts: 1, result: "late" });

describe.each(adapterCases)("stale holders of a workflow run over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-stale");
  const { call } = scriptCalls(h);
  const lease = async (tick: string) => {
    await h.redis.hset(`${h.prefix}tick:${tick}`, "seq", 1);
    await h.redis.pexpire(`${h.prefix}tick:${tick}`, 60_000);
  };
  const calls = new Map<string, number>();
  const tick = (id: string, claim: number, commits: Commit[] = []) => {
    const n = (calls.get(id) ?? 0) + 1;
    calls.set(id, n);
    return call(
      protocol.workflow_tick,
      { ticks: "ticks", lease: `tick:${id}` },
      { tickId: id, call: n, claim, retentionMs: 60_000, commits },
    );
  };
  const start = (id: string) =>
    call(protocol.workflow_start, { run: `wf:run:${id}` }, { id, name: "wf", input: "null", version: 1 });
  const commit = (id: string, fence: string, disposition: Commit["disposition"]): Commit => ({
    id,
    fence,
    disposition,
    extra: disposition === "d" ? '"late"' : "",
    steps: [{ name: "s", record: RECORD }],
    parks: [],
  });

  it("a commit after a cancel, or from a tick whose run was reclaimed, writes nothing", async () => {
    await Promise.all([lease("A"), lease("B")]);
    await start("r1");
    await start("r2");
    const claimed = (await tick("A", 2)).claimed;
    const fence = (id: string) => claimed.find((c) => c.id === id)!.fence;
    // A holds r1 and has not heard of the cancel yet.
    expect(await call(protocol.workflow_cancel, { run: "wf:run:r1" }, { id: "r1" })).toBe("cancelling");
    // A dies; B reclaims r2 (and r1, cancelled, stays so).
    await h.redis.del(`${h.prefix}tick:A`);
    const taken = await tick("B", 5);
    expect(taken.claimed.map((c) => c.id)).toEqual(["r2"]);
    expect(BigInt(taken.claimed[0]!.fence)).toBeGreaterThan(BigInt(fence("r2")));
    await lease("A"); // even were A's lease back, its fences are stale
    const late = await tick("A", 0, [commit("r1", fence("r1"), "d"), commit("r2", fence("r2"), "d")]);
    expect(late.committed).toEqual([0, 0]);
    expect(await h.redis.hget(`${h.prefix}wf:run:r1`, "status")).toBe("cancelled");
    expect(await h.redis.hget(`${h.prefix}wf:run:r2`, "status")).toBe("running");
    expect(await h.redis.hget(`${h.prefix}wf:run:r2`, "owner")).toBe("B");
    expect(await h.redis.exists(`${h.prefix}wf:steps:r1`, `${h.prefix}wf:steps:r2`)).toBe(0);
  });

  it("fences grow after Redis forgets the fence counter", async () => {
    await lease("A");
    await start("r1");
    const first = (await tick("A", 1)).claimed[0]!;
    await tick("A", 0, [commit("r1", first.fence, "y")]);
    await h.redis.del(`${h.prefix}wf:fence`);
    const second = (await tick("A", 1)).claimed[0]!;
    expect(BigInt(second.fence)).toBeGreaterThan(BigInt(first.fence));
  });

  it("ten ticks claiming at once: each run goes to one of them, with its own fence", async () => {
    const ticks = Array.from({ length: 10 }, (_, i) => `T${i}`);
    await Promise.all(ticks.map(lease));
    await Promise.all(Array.from({ length: 20 }, (_, i) => start(`r${i}`)));
    const replies = await Promise.all(ticks.map((t) => tick(t, 5)));
    const ids = replies.flatMap((r) => r.claimed.map((c) => c.id));
    expect(ids.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `r${i}`).sort());
    expect(new Set(replies.flatMap((r) => r.claimed.map((c) => c.fence))).size).toBe(20);
  });

  it("a cancel of a run held by a dead tick leaves no note for that tick", async () => {
    await lease("A");
    await start("r1");
    await tick("A", 1);
    await h.redis.del(`${h.prefix}tick:A`);
    // A dead tick starts no step: nothing to wait for.
    expect(await call(protocol.workflow_cancel, { run: "wf:run:r1" }, { id: "r1" })).toBe("cancelled");
    expect(await h.redis.keys(`${h.prefix}wf:cancel:*`)).toEqual([]);
    expect(await h.redis.keys(`${h.prefix}cancel:*`)).toEqual([]);
  });
});
