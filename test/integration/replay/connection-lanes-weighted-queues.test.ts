// Steps in the lanes of one connection (lib/tick/replay-call.lua, 'c' and
// 'd') that fetch from several queues by weighted picks: a call may take a
// queue in more than one group, and the other lane's later call puts jobs in
// front of its own in each list. The replay of either, in either order,
// answers its own jobs, every group of every queue read back at its place.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { rawAcks, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const KEYS = tickKeys("t1");
// The same texts in both queues, and in copies within each: only place tells them apart.
const job = (n: number) => JSON.stringify({ class: "x", args: [n % 3] });

describe.each(adapterCases)("connection lanes over weighted queues over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "connlanes-weighted");
  const { call, callTwice } = scriptCalls(h);
  const step = (header: string, batch: number, picks: number[], acked: Record<string, string[]> = {}) =>
    stepArgs({ tick: "t1", leaseMs: LEASE, call: header, batch, queues: ["a", "b"], picks, acks: rawAcks(acked) });

  it("replays of both lanes, resent after both ran, answer each its own groups", async () => {
    for (const q of ["a", "b"])
      await h.redis.rpush(`${h.prefix}queue:${q}`, ...Array.from({ length: 12 }, (_, i) => job(i)).reverse());
    const options = { tick: "t1", leaseMs: LEASE, batch: 2, queues: ["a", "b"] };
    await call(protocol.begin, beginKeys(options), beginNamed(options));
    const held = await h.redis.lrange(`${h.prefix}inproc:t1:a`, -1, -1);
    const c = await call(protocol.step, KEYS, step("2c/0/0", 5, [0, 1, 0, 0, 1], { a: held }));
    const d = await call(protocol.step, KEYS, step("3d/0/0", 4, [1, 0, 1, 0]));
    const lists = async () => [
      await h.redis.lrange(`${h.prefix}inproc:t1:a`, 0, -1),
      await h.redis.lrange(`${h.prefix}inproc:t1:b`, 0, -1),
    ];
    const before = await lists();
    const { first: cAgain } = await callTwice(protocol.step, KEYS, step("2c/0/0", 5, [0, 1, 0, 0, 1], { a: held }));
    expect(cAgain).toEqual(c);
    const { first: dAgain } = await callTwice(protocol.step, KEYS, step("3d/0/0", 4, [1, 0, 1, 0]));
    expect(dAgain).toEqual(d);
    expect(await lists()).toEqual(before);
    // A later call of lane c, then the replay of d: d's jobs sit behind its jobs.
    const c2 = await call(protocol.step, KEYS, step("4c/0/0", 3, [0, 1, 1]));
    expect(c2.leaseHeld).toBe(true);
    const { first: dLate } = await callTwice(protocol.step, KEYS, step("3d/0/0", 4, [1, 0, 1, 0]));
    expect(dLate).toEqual(d);
  });
});
