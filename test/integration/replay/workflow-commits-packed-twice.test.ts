// A workflow call's commits go packed (src/protocol/define.ts `packed`: "j<values>", then the section's
// values in one value), or as a counted section when a value holds the separator; both forms, each
// resent, commit once and write what the other form would. finish carries its commits the same way, and
// a finish that found its lease gone commits none of them (each answered 0), packed or not.
import { describe, expect, it } from "vitest";
import { encode, JOIN_SEPARATOR } from "../../../src/protocol/define.js";
import * as protocol from "../../../src/protocol/index.js";
import type { Commit } from "../../../src/workflows/execute.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import { finishArgs, tickKeys as finishKeys, workflowTickArgs as tickArgs } from "../../helpers/tick-calls.js";

const LEASE = 60_000;
const record = (seq: number, result: unknown) => JSON.stringify({ status: "completed", seq, attempts: 1, result });

describe.each(adapterCases)("workflow commits, packed or apart, each resent, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-packed");
  const { call, callTwice, run } = scriptCalls(h);
  const tickKeys = { ticks: "ticks", lease: "tick:T" };
  const start = (id: string) => run(protocol.workflow_start.script, [`wf:run:${id}`], [id, "wf", "null"]);
  const runField = (id: string, field: string) => h.redis.hget(`${h.prefix}wf:run:${id}`, field);
  /** The commits' part of a workflow_tick call as sent: ARGV after tickId, call, claim, retentionMs. */
  const commitsPart = (commits: Commit[]) =>
    encode(protocol.workflow_tick, tickKeys, tickArgs(2, 0, commits)).args.slice(4);

  /** Three runs claimed by tick T (its lease held): their ids and fences. */
  async function claimThree(): Promise<{ id: string; fence: string }[]> {
    await h.redis.hset(`${h.prefix}tick:T`, "seq", 1);
    await h.redis.pexpire(`${h.prefix}tick:T`, LEASE);
    for (const id of ["a", "b", "c"]) await start(id);
    const { claimed } = await call(protocol.workflow_tick, tickKeys, tickArgs(1, 3, []));
    return claimed.map(({ id, fence }) => ({ id, fence })).sort((x, y) => x.id.localeCompare(y.id));
  }

  /** A round's commit of `a` (two steps), a park of `b` (a 60 s sleep, a wait), the end of `c`, with steps named as given. */
  function commitsOf(runs: { id: string; fence: string }[], names: [string, string, string]): Commit[] {
    const [a, b, c] = runs as [
      { id: string; fence: string },
      { id: string; fence: string },
      { id: string; fence: string },
    ];
    return [
      {
        ...a,
        disposition: "c",
        extra: "",
        steps: [
          { name: names[0], record: record(0, "x") },
          { name: "t", record: record(1, [1, 2]) },
        ],
        parks: [],
      },
      {
        ...b,
        disposition: "p",
        extra: "",
        steps: [{ name: names[1], record: record(0, { v: 1 }) }],
        parks: [
          { step: "nap", kind: "s", seq: 1, ms: "60000", event: "", match: "" },
          { step: "hear", kind: "w", seq: 2, ms: "", event: "ev", match: "m1" },
        ],
      },
      { ...c, disposition: "d", extra: '{"out":3}', steps: [{ name: names[2], record: record(0, 3) }], parks: [] },
    ];
  }

  it("workflow_tick: packed commits, resent, commit once: a round, a park, an end", async () => {
    const runs = await claimThree();
    const commits = commitsOf(runs, ["s", "s", "s"]);
    const part = commitsPart(commits);
    expect(part).toHaveLength(2);
    expect(String(part[0])).toMatch(/^j\d+$/);
    const { first } = await callTwice(protocol.workflow_tick, tickKeys, tickArgs(2, 0, commits));
    expect(first.committed).toEqual([1, 1, 1]);
    expect(await h.redis.hget(`${h.prefix}wf:steps:a`, "s")).toBe(record(0, "x"));
    expect(await h.redis.hget(`${h.prefix}wf:steps:a`, "t")).toBe(record(1, [1, 2]));
    expect(await runField("a", "owner")).toBe("T");
    expect(await h.redis.hget(`${h.prefix}wf:steps:b`, "s")).toBe(record(0, { v: 1 }));
    expect(await runField("b", "status")).toBe("waiting");
    expect((await h.redis.hkeys(`${h.prefix}wf:park:b`)).sort()).toEqual(["hear", "nap"]);
    expect(JSON.parse((await h.redis.hget(`${h.prefix}wf:park:b`, "hear"))!)).toMatchObject({
      k: "w",
      e: "ev",
      m: "m1",
    });
    expect(await runField("c", "status")).toBe("completed");
    expect(await runField("c", "output")).toBe('{"out":3}');
  });

  it("workflow_tick: commits with a step name holding the separator go apart and, resent, commit once", async () => {
    const runs = await claimThree();
    const odd = `odd${JOIN_SEPARATOR}name`;
    const commits = commitsOf(runs, ["s", odd, "s"]);
    const part = commitsPart(commits);
    expect(part[0]).toBe(3);
    const { first } = await callTwice(protocol.workflow_tick, tickKeys, tickArgs(2, 0, commits));
    expect(first.committed).toEqual([1, 1, 1]);
    expect(await h.redis.hget(`${h.prefix}wf:steps:a`, "s")).toBe(record(0, "x"));
    expect(await h.redis.hget(`${h.prefix}wf:steps:b`, odd)).toBe(record(0, { v: 1 }));
    expect(await runField("b", "status")).toBe("waiting");
    expect(await runField("c", "output")).toBe('{"out":3}');
  });

  it("finish: packed commits, resent, commit once; with the lease gone each answers 0 and none is written", async () => {
    for (const id of ["r1", "r2"]) await start(id);
    const begun = await call(
      protocol.begin,
      beginKeys({ tick: "T", leaseMs: LEASE }),
      beginNamed({ tick: "T", leaseMs: LEASE, workflowClaim: 10 }),
    );
    const fence = (id: string) => begun.workflows!.claimed.find((c) => c.id === id)!.fence;
    const end = (id: string, out: string): Commit => ({
      id,
      fence: fence(id),
      disposition: "d",
      extra: out,
      steps: [{ name: "s", record: record(0, out) }],
      parks: [],
    });
    const sent = encode(protocol.finish, finishKeys("T"), {
      ...finishArgs({ tick: "T", leaseMs: LEASE, call: 2 }),
      workflows: [end("r1", "1")],
    });
    expect(String(sent.args[5])).toMatch(/^j\d+$/);
    const { first } = await callTwice(protocol.finish, finishKeys("T"), {
      ...finishArgs({ tick: "T", leaseMs: LEASE, call: 2 }),
      workflows: [end("r1", "1")],
    });
    expect(first.committed).toEqual([1]);
    expect(await runField("r1", "status")).toBe("completed");
    expect(await runField("r1", "output")).toBe("1");

    // A finish of tick U, whose lease is gone (its reply carries the clock: not kept, each run answers anew):
    // r2 stays as it was, each run alike, and the parts after the commits are read where they are.
    const lostArgs = {
      ...finishArgs({ tick: "U", leaseMs: LEASE, call: 2 }),
      workflows: [end("r2", "2"), end("r2", "3")],
    };
    const before = await snapshot(h.redis, h.prefix);
    for (let k = 0; k < 2; k++) {
      const lost = await call(protocol.finish, finishKeys("U"), lostArgs);
      expect(lost.committed).toEqual([0, 0]);
      expect(lost.leaseGone).toBe(1);
      expect(await snapshot(h.redis, h.prefix)).toEqual(before);
    }
    expect(await runField("r2", "status")).toBe("running");
  });

  it("finish: commits sent apart (a record holds the separator), resent, commit once; gone, none", async () => {
    for (const id of ["r1", "r2"]) await start(id);
    const begun = await call(
      protocol.begin,
      beginKeys({ tick: "T", leaseMs: LEASE }),
      beginNamed({ tick: "T", leaseMs: LEASE, workflowClaim: 10 }),
    );
    const fence = (id: string) => begun.workflows!.claimed.find((c) => c.id === id)!.fence;
    const odd = `a${JOIN_SEPARATOR}b`;
    const end = (id: string): Commit => ({
      id,
      fence: fence(id),
      disposition: "d",
      extra: "1",
      steps: [{ name: "s", record: odd }],
      parks: [],
    });
    const args = { ...finishArgs({ tick: "T", leaseMs: LEASE, call: 2 }), workflows: [end("r1")] };
    expect(encode(protocol.finish, finishKeys("T"), args).args[5]).toBe(1);
    const { first } = await callTwice(protocol.finish, finishKeys("T"), args);
    expect(first.committed).toEqual([1]);
    expect(await h.redis.hget(`${h.prefix}wf:steps:r1`, "s")).toBe(odd);
    expect(await runField("r1", "status")).toBe("completed");

    const lostArgs = { ...finishArgs({ tick: "U", leaseMs: LEASE, call: 2 }), workflows: [end("r2"), end("r2")] };
    const before = await snapshot(h.redis, h.prefix);
    const lost = await call(protocol.finish, finishKeys("U"), lostArgs);
    expect(lost.committed).toEqual([0, 0]);
    expect(lost.leaseGone).toBe(1);
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
  });
});
