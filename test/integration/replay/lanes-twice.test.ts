// Steps in lanes (lib/tick/replay-call.lua): over HTTP a tick keeps two steps
// in flight, one in lane a and one in lane b, which may reach Redis in either
// order and be resent after a lost reply. Each lane step, run twice with the
// same arguments, leaves the state of one run and answers its own jobs, even
// once the other lane fetched jobs in front of them and acked some behind or
// in front; a lane numbered below the tick's last call of no lane (its
// finish) acts on nothing; a lane never makes the other stale. Each answers
// the order Redis ran it in among the tick's lane steps, its replay the same.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { finishArgs, rawAcks, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const job = (n: number) => JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", retry: true });
const LEASE = 5_000;
const KEYS = tickKeys("t1");

const jobsOf = (reply: { fetched: readonly { jobs: readonly string[] }[] }) => reply.fetched.flatMap((g) => g.jobs);

describe.each(adapterCases)("steps in lanes over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "lanes");
  const { call, callTwice } = scriptCalls(h);

  /** Enqueues jobs 1..n and begins t1 fetching `first` of them. */
  const setup = async (n: number, first: number) => {
    await h.redis.rpush(`${h.prefix}queue:default`, ...Array.from({ length: n }, (_, i) => job(i + 1)).reverse());
    const options = { tick: "t1", leaseMs: LEASE, batch: first };
    await call(protocol.begin, beginKeys(options), beginNamed(options));
  };
  const step = (header: string, batch: number, acked: string[] = []) =>
    stepArgs({ tick: "t1", leaseMs: LEASE, call: header, batch, acks: rawAcks({ default: acked }) });
  const inproc = () => h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);

  it("a lane step run twice answers the same jobs and leaves the state of one run", async () => {
    await setup(10, 2);
    const { first, after } = await callTwice(protocol.step, KEYS, step("2a/0/0", 3, [job(1)]));
    expect(jobsOf(first)).toEqual([job(3), job(4), job(5)]);
    expect(after["tick:t1"]).toMatchObject({ seqa: "2" });
    expect(after["stat:processed"]).toBe("1");
  });

  it("each lane step answers the order Redis ran it in, and its replay the same number", async () => {
    await setup(10, 2);
    // Lane b's step (3) runs before lane a's (2): the numbers follow the runs, not the call numbers.
    const b = await call(protocol.step, KEYS, step("3b/0/0", 2, [job(1)]));
    const { first: a, after } = await callTwice(protocol.step, KEYS, step("2a/0/0", 2, [job(2)]));
    expect(b.ran).toBe(1);
    expect(a.ran).toBe(2);
    expect(after["tick:t1"]).toMatchObject({ ran: "2" });
    const { first: again } = await callTwice(protocol.step, KEYS, step("3b/0/0", 2, [job(1)]));
    expect(again.ran).toBe(1);
    // The next lane step runs third.
    expect((await call(protocol.step, KEYS, step("4b/0/0", 1))).ran).toBe(3);
  });

  it("a step of no lane (over TCP) answers no run number and counts nothing", async () => {
    await setup(10, 2);
    const { first, after } = await callTwice(protocol.step, KEYS, step("2/0/0", 2, [job(1)]));
    expect(first.ran).toBeUndefined();
    expect(after["tick:t1"]).not.toHaveProperty("ran");
  });

  it("the second lane to reach Redis is fresh, whichever its number; each fetches its own jobs once", async () => {
    await setup(10, 2);
    // Lane b's step (3) reaches Redis before lane a's (2): neither is stale.
    const b = await call(protocol.step, KEYS, step("3b/0/0", 2, [job(1)]));
    const a = await call(protocol.step, KEYS, step("2a/0/0", 2, [job(2)]));
    expect(jobsOf(b)).toEqual([job(3), job(4)]);
    expect(jobsOf(a)).toEqual([job(5), job(6)]);
    expect(await h.redis.get(`${h.prefix}stat:processed`)).toBe("2");
    expect(await inproc()).toEqual([job(6), job(5), job(4), job(3)]);
  });

  it("a lane's replay answers its own jobs once the other lane fetched in front of them and acked around them", async () => {
    await setup(20, 2);
    const a = await call(protocol.step, KEYS, step("2a/0/0", 3, [job(1)]));
    expect(jobsOf(a)).toEqual([job(3), job(4), job(5)]);
    // Lane a's reply is lost. Lane b fetches in front of its jobs, then (its reply answered) acks one
    // of job 2 (behind them) and, in a later step, one of its own (in front of them) and fetches again.
    const b = await call(protocol.step, KEYS, step("3b/0/0", 2, [job(2)]));
    expect(jobsOf(b)).toEqual([job(6), job(7)]);
    await call(protocol.step, KEYS, step("4b/0/0", 2, [job(6)]));
    const before = await inproc();
    const { first: replayed, after } = await callTwice(protocol.step, KEYS, step("2a/0/0", 3, [job(1)]));
    expect(replayed).toEqual(a);
    expect(after["inproc:t1:default"]).toEqual(before);
    expect(after["stat:processed"]).toBe("3");
  });

  it("a replay finds its jobs in each queue it fetched from, the other lane's in front of both", async () => {
    const other = (n: number) => JSON.stringify({ class: "x", args: [n], jid: `o${n}`, queue: "other", retry: true });
    await h.redis.rpush(`${h.prefix}queue:default`, job(2), job(1));
    await h.redis.rpush(`${h.prefix}queue:other`, ...[1, 2, 3, 4, 5].map(other).reverse());
    const options = { tick: "t1", leaseMs: LEASE, batch: 0, queues: ["default", "other"] };
    await call(protocol.begin, beginKeys(options), beginNamed(options));
    const two = (header: string, batch: number) =>
      stepArgs({ tick: "t1", leaseMs: LEASE, call: header, batch, queues: ["default", "other"] });
    const a = await call(protocol.step, KEYS, two("2a/0/0", 4));
    expect(a.fetched.map((g) => [g.queue, g.jobs])).toEqual([
      ["default", [job(1), job(2)]],
      ["other", [other(1), other(2)]],
    ]);
    await call(protocol.step, KEYS, two("3b/0/0", 2));
    const { first: again } = await callTwice(protocol.step, KEYS, two("2a/0/0", 4));
    expect(again).toEqual(a);
  });

  it("a lane step numbered below the tick's finish acts on nothing (held in transit past it)", async () => {
    await setup(10, 2);
    await call(
      protocol.finish,
      KEYS,
      finishArgs({ tick: "t1", leaseMs: LEASE, call: 3, acks: rawAcks({ default: [job(1), job(2)] }) }),
    );
    const queued = await h.redis.llen(`${h.prefix}queue:default`);
    const late = await call(protocol.step, KEYS, step("2a/0/0", 3));
    expect(late.leaseHeld).toBe(false);
    expect(jobsOf(late)).toEqual([]);
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(queued);
    expect(await inproc()).toEqual([]);
  });

  it("a lane's older step, after its lane's newer one, is stale; the other lane's newer number does not make it so", async () => {
    await setup(10, 2);
    await call(protocol.step, KEYS, step("5a/0/0", 1));
    const stale = await call(protocol.step, KEYS, step("2a/0/0", 1));
    expect(stale.leaseHeld).toBe(false);
    const fresh = await call(protocol.step, KEYS, step("3b/0/0", 1));
    expect(fresh.leaseHeld).toBe(true);
    expect(jobsOf(fresh)).toHaveLength(1);
  });
});
