// Steps in the lanes of one connection (lib/tick/replay-call.lua, 'c' and
// 'd'): over TCP a tick keeps two steps in flight on its connection, and
// ioredis resends both after a reconnect, so the first may reach Redis again
// after the second ran. Each such step keeps the count of the jobs it
// fetched and the length its reply joined them to, not their SHA-1s, and
// counts its run in the HSET of its kept reply; run twice with the same
// arguments it answers the same jobs and leaves the state of one run, even
// once the other lane fetched in front of them and acked a copy of one of
// its texts; a replay that cannot find its jobs as kept answers a lost lease
// (nothing handed over, nothing lost).
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { rawAcks, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const job = (n: number) => JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", retry: true });
// Two enqueues of the same work by a producer that sets no jid: the same text.
const PING = JSON.stringify({ class: "Ping", args: [], queue: "default" });
const LEASE = 5_000;
const KEYS = tickKeys("t1");

const jobsOf = (reply: { fetched: readonly { jobs: readonly string[] }[] }) => reply.fetched.flatMap((g) => g.jobs);

describe.each(adapterCases)("steps in the lanes of one connection over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "connlanes");
  const { call, callTwice } = scriptCalls(h);

  /** Queues `oldestFirst` and begins t1 fetching `first` of them. */
  const setup = async (oldestFirst: string[], first: number) => {
    await h.redis.rpush(`${h.prefix}queue:default`, ...[...oldestFirst].reverse());
    const options = { tick: "t1", leaseMs: LEASE, batch: first };
    await call(protocol.begin, beginKeys(options), beginNamed(options));
  };
  const step = (header: string, batch: number, acked: string[] = []) =>
    stepArgs({ tick: "t1", leaseMs: LEASE, call: header, batch, acks: rawAcks({ default: acked }) });
  const inproc = () => h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);
  const ten = Array.from({ length: 10 }, (_, i) => job(i + 1));

  it("a step run twice answers the same jobs, its run counted once in the write that keeps its reply", async () => {
    await setup(ten, 2);
    const { first, after } = await callTwice(protocol.step, KEYS, step("2c/0/0", 3, [job(1)]));
    expect(jobsOf(first)).toEqual([job(3), job(4), job(5)]);
    // Redis runs a connection's calls in the order sent: the reply needs no run number.
    expect(first.ran).toBeUndefined();
    expect(after["tick:t1"]).toMatchObject({ seqc: "2", ran: "1", ranc: "1" });
    expect(after["stat:processed"]).toBe("1");
    await call(protocol.step, KEYS, step("3d/0/0", 1, [job(2)]));
    expect(await h.redis.hmget(`${h.prefix}tick:t1`, "ran", "rand")).toEqual(["2", "2"]);
  });

  it("the first step's replay, after the second ran, answers its own jobs behind the second's", async () => {
    await setup(ten, 2);
    const c = await call(protocol.step, KEYS, step("2c/0/0", 3, [job(1)]));
    // Both go before either reply is read; the connection breaks and both are resent in order.
    const d = await call(protocol.step, KEYS, step("3d/0/0", 2, [job(2)]));
    expect(jobsOf(d)).toEqual([job(6), job(7)]);
    const before = await inproc();
    const { first: again, after } = await callTwice(protocol.step, KEYS, step("2c/0/0", 3, [job(1)]));
    expect(again).toEqual(c);
    expect(after["inproc:t1:default"]).toEqual(before);
    const { first: dAgain } = await callTwice(protocol.step, KEYS, step("3d/0/0", 2, [job(2)]));
    expect(dAgain).toEqual(d);
    expect(await h.redis.get(`${h.prefix}stat:processed`)).toBe("2");
  });

  it("a replay answers its own copies of a text the other lane then acked an older copy of", async () => {
    // The tick holds one PING from begin; the first step fetches another; the second acks the tick's.
    await setup([PING, job(1), PING, job(2), job(3), job(4)], 1);
    const c = await call(protocol.step, KEYS, step("2c/0/0", 3));
    expect(jobsOf(c)).toEqual([job(1), PING, job(2)]);
    const d = await call(protocol.step, KEYS, step("3d/0/0", 2, [PING]));
    expect(jobsOf(d)).toEqual([job(3), job(4)]);
    const { first: again } = await callTwice(protocol.step, KEYS, step("2c/0/0", 3));
    expect(again).toEqual(c);
    expect(await inproc()).toEqual([job(4), job(3), job(2), PING, job(1)]);
  });

  it("a step whose jobs its reply joins in chunks (past 8 KiB) answers them again on its replay", async () => {
    const big = (n: number) =>
      JSON.stringify({ class: "x", args: ["y".repeat(5_000)], jid: `b${n}`, queue: "default" });
    await setup([1, 2, 3, 4].map(big), 0);
    const c = await call(protocol.step, KEYS, step("2c/0/0", 3));
    expect(jobsOf(c)).toEqual([big(1), big(2), big(3)]);
    await call(protocol.step, KEYS, step("3d/0/0", 1));
    const { first: again } = await callTwice(protocol.step, KEYS, step("2c/0/0", 3));
    expect(again).toEqual(c);
  });

  it("a replay after two calls of the other lane ran answers a lost lease, run twice the same", async () => {
    // Jobs of one length: a count and a length alone cannot tell whose they are.
    await setup(ten, 0);
    // Sent 2c then 3d; the tick's resend ran 3d first (2c failed loading), 2c's reply was taken, 4c went.
    await call(protocol.step, KEYS, step("3d/0/0", 2));
    await call(protocol.step, KEYS, step("2c/0/0", 2));
    await call(protocol.step, KEYS, step("4c/0/0", 2));
    const before = await inproc();
    const lease = await h.redis.hgetall(`${h.prefix}tick:t1`);
    // Run twice with the same arguments: each answers a lost lease (its time aside) and changes nothing.
    for (const again of [
      await call(protocol.step, KEYS, step("3d/0/0", 2)),
      await call(protocol.step, KEYS, step("3d/0/0", 2)),
    ]) {
      expect(again.leaseHeld).toBe(false);
      expect(jobsOf(again)).toEqual([]);
    }
    expect(await inproc()).toEqual(before);
    expect(await h.redis.hgetall(`${h.prefix}tick:t1`)).toEqual(lease);
  });

  it("a replay that finds other jobs where its own were answers a lost lease and hands over nothing", async () => {
    await setup(ten, 0);
    await call(protocol.step, KEYS, step("2c/0/0", 3));
    // Not a path the tick's own calls take: the list no longer holds the step's jobs as it kept them.
    await h.redis.lset(`${h.prefix}inproc:t1:default`, 0, job(99));
    const before = await inproc();
    const again = await call(protocol.step, KEYS, step("2c/0/0", 3));
    expect(again.leaseHeld).toBe(false);
    expect(jobsOf(again)).toEqual([]);
    expect(await inproc()).toEqual(before);
  });
});
