// The workflow scripts, each run twice with the same arguments: the second
// run leaves the state of one and answers the same (workflow_start by its
// id, workflow_tick by its call number kept in the lease, workflow_event by
// its call token); the reads write nothing. A commit whose fence is not the
// run's (a stale execution) changes nothing, nor does any from a lease taken
// before a Redis restart.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { workflowTickArgs as tickArgs } from "../../helpers/tick-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import { encode } from "../../../src/protocol/define.js";
import type { Commit } from "../../../src/workflows/execute.js";

describe.each(adapterCases)("each workflow script run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-replay");
  const { call, callTwice, readsCallTwice, readsTwice, run } = scriptCalls(h);
  const runKey = (id: string) => `${h.prefix}wf:run:${id}`;
  const tickKeys = () => ({ ticks: `${h.prefix}ticks`, lease: `${h.prefix}tick:T` });
  const lease = () =>
    h.redis.hset(`${h.prefix}tick:T`, "seq", 1).then(() => h.redis.pexpire(`${h.prefix}tick:T`, 60_000));
  // The scripts take the prefix first; callTwice puts the test's prefix before the keys it is given.
  const unprefixed = <K extends Record<string, string>>(keys: K) =>
    Object.fromEntries(Object.entries(keys).map(([k, v]) => [k, v.slice(h.prefix.length)])) as K;

  it("workflow_start: a resent start creates the run once", async () => {
    const { first } = await callTwice(protocol.workflow_start, unprefixed({ run: runKey("r1") }), {
      id: "r1",
      name: "wf",
      input: '{"a":1.0}',
      version: 1,
    });
    expect(first).toBe("wf");
    expect(await h.redis.hget(runKey("r1"), "input")).toBe('{"a":1.0}');
    expect(await h.redis.zscore(`${h.prefix}wf:due`, "r1")).not.toBeNull();
  });

  it("workflow_tick: a claim checks held runs once a period, a live holder's rescored, a dead holder's due again", async () => {
    await lease();
    await run(protocol.workflow_start.script, ["wf:run:live"], ["live", "wf", "null"]);
    await run(protocol.workflow_start.script, ["wf:run:dead"], ["dead", "wf", "null"]);
    await call(protocol.workflow_tick, unprefixed(tickKeys()), tickArgs(1, 10, []));
    // "dead" now belongs to a tick whose lease is gone; both were held since their claim.
    await h.redis.hset(runKey("dead"), "owner", "GONE");
    await run(protocol.workflow_start.script, ["wf:run:next"], ["next", "wf", "null"]);
    const { first } = await callTwice(protocol.workflow_tick, unprefixed(tickKeys()), tickArgs(2, 10, []));
    expect(first.claimed.map((c) => c.id).sort()).toEqual(["dead", "next"]);
    const held = `${h.prefix}wf:held`;
    const liveScore = Number(await h.redis.zscore(held, "live"));
    expect(liveScore).toBeGreaterThanOrEqual(first.nowMs + 1_000);
    expect(Number(await h.redis.zscore(held, "dead"))).toBe(first.nowMs);
    // A run's commit writes its steps and nothing to wf:held: its next check stays where it was.
    const record = JSON.stringify({ status: "completed", seq: 0, attempts: 1, result: 1 });
    const fence = await h.redis.hget(runKey("live"), "fence");
    await callTwice(
      protocol.workflow_tick,
      unprefixed(tickKeys()),
      tickArgs(3, 0, [
        { id: "live", fence: fence!, disposition: "c", extra: "", steps: [{ name: "s", record }], parks: [] },
      ]),
    );
    expect(Number(await h.redis.zscore(held, "live"))).toBe(liveScore);
    expect(await h.redis.hget(`${h.prefix}wf:steps:live`, "s")).toBe(record);
  });

  it("workflow_tick: from a lease taken before a Redis restart, run twice, answers the lease lost and writes nothing", async () => {
    await lease();
    await run(protocol.workflow_start.script, ["wf:run:r1"], ["r1", "wf", "null"]);
    const held = (await call(protocol.workflow_tick, unprefixed(tickKeys()), tickArgs(1, 1, []))).claimed[0]!;
    await run(protocol.workflow_start.script, ["wf:run:r2"], ["r2", "wf", "null"]);
    // Stamped by the Redis before a restart (src/lua/lib/tick/restart-hold.lua): the restart may have forgotten
    // this tick's claims and commits since, so none of its commits may land over what is left.
    await h.redis.hset(`${h.prefix}tick:T`, "boot", "0".repeat(40));
    const record = JSON.stringify({ status: "completed", seq: 0, attempts: 1, result: 1 });
    const commit: Commit = {
      id: held.id,
      fence: held.fence,
      disposition: "d",
      extra: "1",
      steps: [{ name: "s", record }],
      parks: [],
    };
    // Nothing written by either run (the claim above already wrote the restart record); each answers the same but
    // the clock.
    const [first, again] = await readsCallTwice(
      protocol.workflow_tick,
      unprefixed(tickKeys()),
      tickArgs(2, 10, [commit]),
    );
    expect({ ...again, nowMs: first.nowMs }).toEqual(first);
    expect(first.leaseHeld).toBe(false);
    expect(first.committed).not.toContain(1);
    expect(first.claimed).toEqual([]);
    expect(await h.redis.hget(runKey("r1"), "status")).toBe("running");
    expect(await h.redis.exists(`${h.prefix}wf:steps:r1`)).toBe(0);
    expect(await h.redis.zscore(`${h.prefix}wf:due`, "r2")).not.toBeNull();
  });

  it("workflow_tick: a resent claim claims nothing more, a resent commit commits once", async () => {
    await lease();
    await run(protocol.workflow_start.script, ["wf:run:r1"], ["r1", "wf", "null"]);
    await run(protocol.workflow_start.script, ["wf:run:r2"], ["r2", "wf", "null"]);
    const claimed = await callTwice(protocol.workflow_tick, unprefixed(tickKeys()), tickArgs(1, 10, []));
    expect(claimed.first.claimed.map((c) => c.id).sort()).toEqual(["r1", "r2"]);
    const [one, two] = claimed.first.claimed;
    expect(Number(two!.fence)).toBeGreaterThan(Number(one!.fence));
    const record = JSON.stringify({ status: "completed", seq: 0, attempts: 1, result: { v: 1 } });
    const commit = (id: string, fence: string, disposition: Commit["disposition"], extra = ""): Commit => ({
      id,
      fence,
      disposition,
      extra,
      steps: [{ name: "s", record }],
      parks: [],
    });
    const committed = await callTwice(
      protocol.workflow_tick,
      unprefixed(tickKeys()),
      tickArgs(2, 0, [commit(one!.id, one!.fence, "c"), commit(two!.id, two!.fence, "d", '{"out":2}')]),
    );
    expect(committed.first.committed).toEqual([1, 1]);
    expect(await h.redis.hget(`${h.prefix}wf:steps:${one!.id}`, "s")).toBe(record);
    expect(await h.redis.hget(runKey(two!.id), "status")).toBe("completed");
    expect(await h.redis.hget(runKey(two!.id), "output")).toBe('{"out":2}');

    // A stale fence: nothing written.
    const before = await snapshot(h.redis, h.prefix);
    const stale = await run(
      protocol.workflow_tick.script,
      ["ticks", "tick:T"],
      encode(
        protocol.workflow_tick,
        tickKeys(),
        tickArgs(3, 0, [commit(one!.id, String(Number(one!.fence) - 1), "d", "1")]),
      ).args,
    );
    expect((stale as unknown[])[2]).toEqual("0");
    const after = await snapshot(h.redis, h.prefix);
    delete (after as Record<string, unknown>)["tick:T"];
    delete (before as Record<string, unknown>)["tick:T"];
    expect(after).toEqual(before);
  });

  it("workflow_tick: ten runs ended in one call, resent, are listed and counted once; a call with every slot taken claims and removes nothing", async () => {
    await lease();
    const ids = Array.from({ length: 10 }, (_, k) => `e${k}`);
    for (const id of ids) await run(protocol.workflow_start.script, [`wf:run:${id}`], [id, "wf", "null"]);
    await run(protocol.workflow_start.script, ["wf:run:later"], ["later", "wf", "null"]);
    const { claimed } = await call(protocol.workflow_tick, unprefixed(tickKeys()), tickArgs(1, 10, []));
    expect(claimed.map((c) => c.id).sort()).toEqual(ids);
    const record = JSON.stringify({ status: "completed", seq: 0, attempts: 1, result: 1 });
    const ends: Commit[] = claimed.map((c, k) => ({
      id: c.id,
      fence: c.fence,
      disposition: k % 2 === 0 ? "d" : "f",
      extra: k % 2 === 0 ? `${k}` : '{"name":"Error","message":"x"}',
      steps: [{ name: "s", record }],
      parks: [],
    }));
    // Slots full (-1): the ends commit, nothing is claimed, and `more` is not read.
    const { first } = await callTwice(protocol.workflow_tick, unprefixed(tickKeys()), tickArgs(2, -1, ends));
    expect(first.committed).toEqual(ends.map(() => 1));
    expect(first.claimed).toEqual([]);
    expect(await h.redis.zscore(`${h.prefix}wf:due`, "later")).not.toBeNull();
    expect(await h.redis.hgetall(`${h.prefix}wf:counts`)).toEqual({
      "completed:wf": "5",
      "failed:wf": "5",
      "running:wf": "1",
    });
    expect((await h.redis.zrange(`${h.prefix}wf:s:completed`, "0", "-1")).sort()).toEqual(
      ids.filter((_, k) => k % 2 === 0),
    );
    expect((await h.redis.zrange(`${h.prefix}wf:s:failed`, "0", "-1")).sort()).toEqual(
      ids.filter((_, k) => k % 2 === 1),
    );
    expect(await h.redis.zrange(`${h.prefix}wf:s:running`, "0", "-1")).toEqual(["later"]);
    expect(await h.redis.zcard(`${h.prefix}wf:ended`)).toBe(10);
    expect(await h.redis.zcard(`${h.prefix}wf:held`)).toBe(0);
    for (const id of ids) expect(await h.redis.hget(runKey(id), "owner")).toBeNull();
  });

  it("workflow_tick: a run that parked while held and is claimed again, claim resent, has its due sleep resolved once", async () => {
    await lease();
    await run(protocol.workflow_start.script, ["wf:run:r1"], ["r1", "wf", "null"]);
    const { claimed } = await call(protocol.workflow_tick, unprefixed(tickKeys()), tickArgs(1, 1, []));
    // A kept event resolves the wait as it parks (the run stays running, due now); the 0 ms sleep beside it stays parked.
    await call(
      protocol.workflow_event,
      { waits: "wf:wait:4:paid42" },
      {
        token: "tok",
        tokenMs: 60_000,
        event: "paid",
        match: "42",
        data: "1",
        id: "",
        retentionMs: 60_000,
      },
    );
    const parks = [
      { step: "nap", kind: "s", seq: 0, ms: "0", event: "", match: "" },
      { step: "ev", kind: "w", seq: 1, ms: "", event: "paid", match: "42" },
    ];
    const fence = claimed[0]!.fence;
    await call(
      protocol.workflow_tick,
      unprefixed(tickKeys()),
      tickArgs(2, 0, [{ id: "r1", fence, disposition: "p", extra: "", steps: [], parks }]),
    );
    expect(await h.redis.hget(runKey("r1"), "status")).toBe("running");
    expect(await h.redis.hexists(`${h.prefix}wf:park:r1`, "nap")).toBe(1);
    const { first } = await callTwice(protocol.workflow_tick, unprefixed(tickKeys()), tickArgs(3, 1, []));
    expect(first.claimed.map((c) => c.id)).toEqual(["r1"]);
    const steps = first.claimed[0]!.steps.filter((_, k) => k % 3 === 0);
    expect(steps.sort()).toEqual(["ev", "nap"]);
    expect(await h.redis.exists(`${h.prefix}wf:park:r1`)).toBe(0);
  });

  it("workflow_tick: a resent park of a run whose version the tick lacks parks it once and notes it once", async () => {
    await lease();
    await run(protocol.workflow_start.script, ["wf:run:r1"], ["r1", "wf", "null", "3"]);
    const { first } = await callTwice(protocol.workflow_tick, unprefixed(tickKeys()), tickArgs(1, 1, []));
    expect(first.claimed[0]).toMatchObject({ id: "r1", version: "3" });
    const park: Commit = {
      id: "r1",
      fence: first.claimed[0]!.fence,
      disposition: "v",
      extra: "60000",
      steps: [],
      parks: [],
    };
    const { first: parked } = await callTwice(protocol.workflow_tick, unprefixed(tickKeys()), tickArgs(2, 0, [park]));
    expect(parked.committed).toEqual([1]);
    expect(await h.redis.hget(runKey("r1"), "status")).toBe("running");
    expect(await h.redis.hget(runKey("r1"), "owner")).toBeNull();
    expect(Number(await h.redis.zscore(`${h.prefix}wf:due`, "r1"))).toBeGreaterThan(parked.nowMs);
    expect(await h.redis.hget(`${h.prefix}wf:unrunnable`, "wf@3")).toMatch(/^\d+ r1$/);
  });

  it("workflow_retry: a resent retry resumes the run once and answers as the first did", async () => {
    await run(protocol.workflow_start.script, ["wf:run:r1"], ["r1", "wf", "null"]);
    const completed = JSON.stringify({ status: "completed", seq: 0, attempts: 1, result: 1 });
    const failedTry = JSON.stringify({ status: "failed", seq: 1, attempts: 1, error: { name: "Error", message: "x" } });
    await h.redis.hset(`${h.prefix}wf:steps:r1`, "a", completed, "b", failedTry);
    await h.redis.hset(
      runKey("r1"),
      "status",
      "failed",
      "error",
      '{"name":"Error","message":"x","step":"b"}',
      "ended",
      "1",
    );
    await h.redis.zadd(`${h.prefix}wf:ended`, 1, "r1");
    const { first } = await callTwice(protocol.workflow_retry, unprefixed({ run: runKey("r1") }), {
      id: "r1",
      token: "t1",
    });
    expect(first).toEqual({ outcome: "resumed", status: "running" });
    expect(await h.redis.hgetall(`${h.prefix}wf:steps:r1`)).toEqual({ a: completed });
    expect(await h.redis.hget(runKey("r1"), "retries")).toBe("1");
    expect(await h.redis.zscore(`${h.prefix}wf:ended`, "r1")).toBeNull();
    expect(await call(protocol.workflow_retry, unprefixed({ run: runKey("r1") }), { id: "r1", token: "t2" })).toEqual({
      outcome: "again",
      status: "running",
    });
  });

  it("workflow_fork: a resent fork creates the run and its copied steps once", async () => {
    const record = JSON.stringify({ status: "completed", seq: 0, attempts: 1, result: { a: 1.0 } });
    const { first } = await callTwice(protocol.workflow_fork, unprefixed({ run: runKey("f1") }), {
      id: "f1",
      name: "wf",
      input: '{"k":1.0}',
      version: "2",
      source: "r0",
      records: [{ step: "a", record }],
    });
    expect(first).toBe("wf");
    expect(await h.redis.hget(`${h.prefix}wf:steps:f1`, "a")).toBe(record);
    expect(await h.redis.hmget(runKey("f1"), "input", "version", "forked", "status")).toEqual([
      '{"k":1.0}',
      "2",
      "r0",
      "running",
    ]);
  });

  it("workflow_tick: a park with a sleep and a wait, resent, parks once", async () => {
    await lease();
    await run(protocol.workflow_start.script, ["wf:run:r1"], ["r1", "wf", "null"]);
    const { first } = await callTwice(protocol.workflow_tick, unprefixed(tickKeys()), tickArgs(1, 1, []));
    const fence = first.claimed[0]!.fence;
    await callTwice(
      protocol.workflow_tick,
      unprefixed(tickKeys()),
      tickArgs(2, 0, [
        {
          id: "r1",
          fence,
          disposition: "p",
          extra: "",
          steps: [],
          parks: [
            { step: "nap", kind: "s", seq: 0, ms: "60000", event: "", match: "" },
            { step: "ev", kind: "w", seq: 1, ms: "", event: "paid", match: "42" },
          ],
        },
      ]),
    );
    expect(await h.redis.hget(runKey("r1"), "status")).toBe("waiting");
    expect(await h.redis.scard(`${h.prefix}wf:wait:4:paid42`)).toBe(1);
  });

  it("workflow_tick: a resent end of a run with a wait still parked unparks it once", async () => {
    await lease();
    await run(protocol.workflow_start.script, ["wf:run:r1"], ["r1", "wf", "null"]);
    const claim = await run(
      protocol.workflow_tick.script,
      ["ticks", "tick:T"],
      encode(protocol.workflow_tick, tickKeys(), tickArgs(1, 1, [])).args,
    );
    const fence = ((claim as unknown[])[3] as string[][])[0]![3]!;
    const parks = [
      { step: "nap", kind: "s", seq: 0, ms: "0", event: "", match: "" },
      { step: "ev", kind: "w", seq: 1, ms: "", event: "paid", match: "42" },
    ];
    await run(
      protocol.workflow_tick.script,
      ["ticks", "tick:T"],
      encode(
        protocol.workflow_tick,
        tickKeys(),
        tickArgs(2, 0, [{ id: "r1", fence, disposition: "p", extra: "", steps: [], parks }]),
      ).args,
    );
    // The sleep ends; the run, claimed again, completes with the wait still parked (a Promise.race).
    const again = await run(
      protocol.workflow_tick.script,
      ["ticks", "tick:T"],
      encode(protocol.workflow_tick, tickKeys(), tickArgs(3, 1, [])).args,
    );
    const next = ((again as unknown[])[3] as string[][])[0]![3]!;
    const { first } = await callTwice(
      protocol.workflow_tick,
      unprefixed(tickKeys()),
      tickArgs(4, 0, [{ id: "r1", fence: next, disposition: "d", extra: '"nap"', steps: [], parks: [] }]),
    );
    expect(first.committed).toEqual([1]);
    expect(await h.redis.hget(runKey("r1"), "status")).toBe("completed");
    expect(await h.redis.exists(`${h.prefix}wf:park:r1`, `${h.prefix}wf:wait:4:paid42`)).toBe(0);
  });

  it("workflow_event: a resent event resolves the wait once and answers the same count", async () => {
    await lease();
    await run(protocol.workflow_start.script, ["wf:run:r1"], ["r1", "wf", "null"]);
    const claimed = await run(
      protocol.workflow_tick.script,
      ["ticks", "tick:T"],
      encode(protocol.workflow_tick, tickKeys(), tickArgs(1, 1, [])).args,
    );
    const fence = ((claimed as unknown[])[3] as string[][])[0]![3]!;
    await run(
      protocol.workflow_tick.script,
      ["ticks", "tick:T"],
      encode(
        protocol.workflow_tick,
        tickKeys(),
        tickArgs(2, 0, [
          {
            id: "r1",
            fence,
            disposition: "p",
            extra: "",
            steps: [],
            parks: [{ step: "ev", kind: "w", seq: 0, ms: "", event: "paid", match: "42" }],
          },
        ]),
      ).args,
    );
    const { first } = await callTwice(
      protocol.workflow_event,
      { waits: "wf:wait:4:paid42" },
      {
        token: "tok",
        tokenMs: 60_000,
        event: "paid",
        match: "42",
        data: '{"plan":"pro"}',
        id: "",
        retentionMs: 60_000,
      },
    );
    expect(first).toEqual({ found: 1, left: 0 });
    expect(await h.redis.hget(runKey("r1"), "status")).toBe("running");
    expect(JSON.parse((await h.redis.hget(`${h.prefix}wf:steps:r1`, "ev"))!)).toMatchObject({
      status: "completed",
      result: { plan: "pro" },
    });
  });

  it("workflow_event: run twice with an id, it keeps one copy under one sequence; a resend by id keeps none", async () => {
    const args = { tokenMs: 60_000, event: "paid", match: "7", data: '{"n":1}', id: "whk", retentionMs: 60_000 };
    const { first } = await callTwice(protocol.workflow_event, { waits: "wf:wait:4:paid7" }, { token: "t1", ...args });
    expect(first).toEqual({ found: 0, left: 0 });
    expect(await h.redis.get(`${h.prefix}wf:eseq`)).toBe("1");
    const kept = await h.redis.lrange(`${h.prefix}wf:log:4:paid7`, 0, -1);
    expect(kept).toEqual([expect.stringMatching(/^1:\d+:\{"n":1\}$/)]);
    // The retried webhook: a new call token, the same id.
    const { first: resent } = await callTwice(
      protocol.workflow_event,
      { waits: "wf:wait:4:paid7" },
      { token: "t2", ...args },
    );
    expect(resent).toEqual({ found: 0, left: 0 });
    expect(await h.redis.lrange(`${h.prefix}wf:log:4:paid7`, 0, -1)).toEqual(kept);
    expect(await h.redis.get(`${h.prefix}wf:eseq`)).toBe("1");
  });

  it("workflow_child notes a child once; workflow_children reads the children and writes nothing", async () => {
    const { first } = await callTwice(protocol.workflow_child, { kids: "wf:kids:p1" }, { child: "c1" });
    expect(first).toBe(1);
    const [a, b] = await readsCallTwice(protocol.workflow_children, { kids: "wf:kids:p1" }, {});
    expect(a).toEqual({ children: ["c1"] });
    expect(b).toEqual(a);
  });

  // Records of 250 KB as a release before the `cut:STEP` entries stored them: the steps hash alone.
  const bigRecord = (seq: number) =>
    JSON.stringify({
      status: "completed",
      seq,
      attempts: 1,
      startedAt: 1,
      endedAt: 2,
      result: `${seq}:`.padEnd(250_000, "x"),
    });
  const storeBig = async (id: string, n: number) => {
    for (let seq = 0; seq < n; seq++) await h.redis.hset(`${h.prefix}wf:steps:${id}`, `s${seq}`, bigRecord(seq));
  };

  it("workflow_tick: a resent claim of a run of 1.5 MB of results answers the same records; the lease keeps none of them", async () => {
    await lease();
    await run(protocol.workflow_start.script, ["wf:run:r1"], ["r1", "wf", "null"]);
    await storeBig("r1", 6);
    const { first } = await callTwice(protocol.workflow_tick, unprefixed(tickKeys()), tickArgs(1, 1, []));
    const steps = first.claimed[0]!.steps;
    // (name, text, cut) in step order: the first result fits the claim's 256 KiB, the others stay in Redis.
    expect(steps.filter((_, k) => k % 3 === 0)).toEqual(["s0", "s1", "s2", "s3", "s4", "s5"]);
    expect([steps[1], Number(steps[2])]).toEqual([bigRecord(0), 0]);
    for (let seq = 1; seq < 6; seq++) {
      expect(JSON.parse(steps[3 * seq + 1]!)).toEqual({
        status: "completed",
        seq,
        attempts: 1,
        startedAt: 1,
        endedAt: 2,
      });
      expect(Number(steps[3 * seq + 2])).toBe(bigRecord(seq).length);
    }
    expect(await h.redis.hstrlen(`${h.prefix}tick:T`, "wreply")).toBeLessThan(1024);
  });

  it("workflow_steps: a read answers the named records and writes nothing; a stale fence reads nothing", async () => {
    await lease();
    await run(protocol.workflow_start.script, ["wf:run:r1"], ["r1", "wf", "null"]);
    await storeBig("r1", 3);
    const { claimed } = await call(protocol.workflow_tick, unprefixed(tickKeys()), tickArgs(1, 1, []));
    const fence = claimed[0]!.fence;
    const read = { tickId: "T", id: "r1", fence, names: ["s1", "s2", "nope"] };
    const [once, twice] = await readsCallTwice(protocol.workflow_steps, unprefixed(tickKeys()), read);
    expect(once).toEqual({ held: true, records: [bigRecord(1), bigRecord(2), ""] });
    expect(twice).toEqual(once);
    const stale = await call(protocol.workflow_steps, unprefixed(tickKeys()), {
      ...read,
      fence: String(Number(fence) - 1),
    });
    expect(stale).toEqual({ held: false, records: [] });
  });

  it("workflow_cancel: a resent cancel cancels once", async () => {
    await lease();
    await run(protocol.workflow_start.script, ["wf:run:r1"], ["r1", "wf", "null"]);
    await run(
      protocol.workflow_tick.script,
      ["ticks", "tick:T"],
      encode(protocol.workflow_tick, tickKeys(), tickArgs(1, 1, [])).args,
    );
    const fence = await h.redis.hget(runKey("r1"), "fence");
    const { first } = await callTwice(protocol.workflow_cancel, unprefixed({ run: runKey("r1") }), { id: "r1" });
    // Its holder T has not heard: a rerun answers so too, and marks nothing more.
    expect(first).toBe("cancelling");
    expect(await h.redis.smembers(`${h.prefix}wf:cancel:T`)).toEqual(["r1"]);
    expect(await h.redis.hgetall(`${h.prefix}cancel:T`)).toEqual({ [`w ${fence} r1`]: "0" });
    expect(await h.redis.zcard(`${h.prefix}wf:held`)).toBe(0);
    // T heard (its extend): the holder is forgotten once, and every call after answers cancelled.
    await h.redis.hset(`${h.prefix}cancel:T`, `w ${fence} r1`, "1");
    const heard = await callTwice(protocol.workflow_cancel, unprefixed({ run: runKey("r1") }), { id: "r1" });
    expect(heard.first).toBe("cancelled");
    expect(await h.redis.hget(runKey("r1"), "cancelling")).toBeNull();
  });

  it("workflow_read and workflow_list write nothing", async () => {
    await run(protocol.workflow_start.script, ["wf:run:r1"], ["r1", "wf", "null"]);
    const [read] = await readsTwice(protocol.workflow_read.script, ["wf:run:r1"], ["r1"]);
    expect(read[0]).toContain("wf");
    const [listed] = await readsTwice(protocol.workflow_list.script, ["wf:all"], ["", 0, 10]);
    expect(listed).toEqual([-1, [["r1", "wf", "running", expect.any(String), expect.any(String)]]]);
    const [live] = await readsTwice(protocol.workflow_live.script, ["wf:all"], ["", 0, 10]);
    expect(live).toEqual([-1, [["r1", "wf", "1", "null", [], []]]]);
  });
});
