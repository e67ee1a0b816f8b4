// The workflow parts of begin and finish, each call run twice with the same
// arguments: a resent begin hands the same runs with the same fences and
// claims none again (its reply is kept in the lease); a resent finish
// answers the same `committed` and commits once (its reply is kept too); a
// commit in finish whose fence is not the run's changes nothing, nor one from
// a lease taken before a Redis restart (answered gone); an app
// with no workflow (claim -1) touches no workflow key.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import type { Commit } from "../../../src/workflows/execute.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { finishArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 60_000;
const RECORD = JSON.stringify({ status: "completed", seq: 0, attempts: 1, result: { v: 1 } });

describe.each(adapterCases)("workflows in begin and finish, each run twice, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-bf-replay");
  const { call, callTwice, run } = scriptCalls(h);
  const start = (id: string) => run(protocol.workflow_start.script, [`wf:run:${id}`], [id, "wf", "null"]);
  const runField = (id: string, field: string) => h.redis.hget(`${h.prefix}wf:run:${id}`, field);
  const commit = (id: string, fence: string, disposition: Commit["disposition"], extra = ""): Commit => ({
    id,
    fence,
    disposition,
    extra,
    steps: [{ name: "s", record: RECORD }],
    parks: [],
  });

  it("begin: a resent begin claims its runs once, with the same fences", async () => {
    await start("r1");
    await start("r2");
    const { first } = await callTwice(
      protocol.begin,
      beginKeys({ tick: "T", leaseMs: LEASE }),
      beginNamed({ tick: "T", leaseMs: LEASE, workflowClaim: 10 }),
    );
    expect(first.workflows?.claimed.map((c) => c.id).sort()).toEqual(["r1", "r2"]);
    expect(first.workflows?.more).toBe(false);
    expect(await runField("r1", "owner")).toBe("T");
    expect(await h.redis.zcard(`${h.prefix}wf:due`)).toBe(0);
  });

  it("begin: a resent begin of a run of 1.5 MB of results hands the same records; the lease keeps none of them", async () => {
    await start("r1");
    const big = (seq: number) =>
      JSON.stringify({ status: "completed", seq, attempts: 1, result: `${seq}:`.padEnd(250_000, "x") });
    for (let seq = 0; seq < 6; seq++) await h.redis.hset(`${h.prefix}wf:steps:r1`, `s${seq}`, big(seq));
    const { first } = await callTwice(
      protocol.begin,
      beginKeys({ tick: "T", leaseMs: LEASE }),
      beginNamed({ tick: "T", leaseMs: LEASE, workflowClaim: 10 }),
    );
    const steps = first.workflows!.claimed[0]!.steps;
    expect(steps.filter((_, k) => k % 3 === 1).join("").length).toBeLessThan(256 * 1024 + 6 * 100);
    expect(steps[1]).toBe(big(0));
    expect(await h.redis.hstrlen(`${h.prefix}tick:T`, "reply")).toBeLessThan(1024);
  });

  it("begin: claim -1 (no workflow declared) touches no workflow key and answers no workflows part", async () => {
    await start("r1");
    const { first } = await callTwice(
      protocol.begin,
      beginKeys({ tick: "T", leaseMs: LEASE }),
      beginNamed({ tick: "T", leaseMs: LEASE }),
    );
    expect(first.workflows).toBeUndefined();
    expect(await runField("r1", "owner")).toBeNull();
    expect(await h.redis.zcard(`${h.prefix}wf:due`)).toBe(1);
  });

  it("finish: a resent finish commits once and answers the same; a stale fence commits nothing", async () => {
    await start("r1");
    await start("r2");
    const begun = await call(
      protocol.begin,
      beginKeys({ tick: "T", leaseMs: LEASE }),
      beginNamed({ tick: "T", leaseMs: LEASE, workflowClaim: 10 }),
    );
    const fence = (id: string) => begun.workflows!.claimed.find((c) => c.id === id)!.fence;
    const stale = String(Number(fence("r2")) - 1);
    const { first } = await callTwice(protocol.finish, tickKeys("T"), {
      ...finishArgs({ tick: "T", leaseMs: LEASE, call: 2 }),
      workflows: [commit("r1", fence("r1"), "d", '{"out":1}'), commit("r2", stale, "d", '"late"')],
    });
    expect(first.committed).toEqual([1, 0]);
    expect(await runField("r1", "status")).toBe("completed");
    expect(await runField("r1", "output")).toBe('{"out":1}');
    expect(await h.redis.hget(`${h.prefix}wf:steps:r1`, "s")).toBe(RECORD);
    expect(await runField("r2", "status")).toBe("running");
    expect(await h.redis.exists(`${h.prefix}wf:steps:r2`)).toBe(0);
  });

  it("finish: from a lease taken before a Redis restart, a resent finish commits nothing and answers the lease gone", async () => {
    await start("r1");
    const begun = await call(
      protocol.begin,
      beginKeys({ tick: "T", leaseMs: LEASE }),
      beginNamed({ tick: "T", leaseMs: LEASE, workflowClaim: 10 }),
    );
    const fence = begun.workflows!.claimed[0]!.fence;
    await h.redis.hset(`${h.prefix}tick:T`, "boot", "0".repeat(40)); // stamped by the Redis before a restart
    const { first } = await callTwice(protocol.finish, tickKeys("T"), {
      ...finishArgs({ tick: "T", leaseMs: LEASE, call: 2 }),
      workflows: [commit("r1", fence, "d", '{"out":1}')],
    });
    expect(first.committed).toEqual([0]);
    expect(first.leaseGone).toBe(1);
    expect(await runField("r1", "status")).toBe("running");
    expect(await h.redis.exists(`${h.prefix}wf:steps:r1`)).toBe(0);
  });

  it("finish: without commits it answers no committed part", async () => {
    await call(protocol.begin, beginKeys({ tick: "T", leaseMs: LEASE }), beginNamed({ tick: "T", leaseMs: LEASE }));
    const { first } = await callTwice(
      protocol.finish,
      tickKeys("T"),
      finishArgs({ tick: "T", leaseMs: LEASE, call: 2 }),
    );
    expect(first.committed).toBeUndefined();
  });
});
