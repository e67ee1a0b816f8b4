// Attacks on lane steps' replays (lib/tick/replay-call.lua): a lane step's
// kept reply must find its jobs again however many the other lane fetched
// in front of them. The first version found a group by its count and the
// SHA-1 of its newest and oldest job's whole text. Texts are not always
// unique: a job pushed without a jid by another producer, or malformed
// text pushed twice, is byte for byte the same as another. These tests
// hold a replay to its promise (it answers the first run's jobs) with such
// texts, and check the put-back paths where one lane acks a job and the
// other fetches it again, and ordered ids a lane fetched while the other
// acked ids and payloads arrived for its own.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import {
  idsOf,
  ORDERED_ENQUEUE_KEYS,
  orderedEnqueueArgs,
  rawAcks,
  stepArgs,
  tickKeys,
} from "../../helpers/tick-calls.js";

const job = (n: number) => JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", retry: true });
// Two enqueues of the same work by a producer that sets no jid: the same text.
const PING = JSON.stringify({ class: "Ping", args: [], queue: "default" });
const PONG = JSON.stringify({ class: "Pong", args: [], queue: "default" });
const LEASE = 5_000;
const KEYS = tickKeys("t1");

const jobsOf = (reply: { fetched: readonly { jobs: readonly string[] }[] }) => reply.fetched.flatMap((g) => g.jobs);

describe.each(adapterCases)("lane step replays under attack over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "lanesadv");
  const { call, callTwice } = scriptCalls(h);

  /** Queues `oldestFirst` and begins t1 fetching `first` of them. */
  const setup = async (oldestFirst: string[], first: number) => {
    await h.redis.rpush(`${h.prefix}queue:default`, ...[...oldestFirst].reverse());
    const options = { tick: "t1", leaseMs: LEASE, batch: first };
    await call(protocol.begin, beginKeys(options), beginNamed(options));
  };
  const step = (header: string, batch: number, acked: string[] = [], others: Parameters<typeof rawAcks>[1] = []) =>
    stepArgs({ tick: "t1", leaseMs: LEASE, call: header, batch, acks: rawAcks({ default: acked }, others) });
  const putBack = (j: string) => ({ code: "q", queue: "default", job: j, updated: "", delay: 0 });

  it("a lane's replay answers its own jobs when the other lane's group starts and ends with the same texts", async () => {
    await setup([PING, job(1), PONG, PING, job(2), PONG], 0);
    const a = await call(protocol.step, KEYS, step("2a/0/0", 3));
    expect(jobsOf(a)).toEqual([PING, job(1), PONG]);
    // Lane a's reply is lost; lane b's step fetches the next three, which look the same at both ends.
    const b = await call(protocol.step, KEYS, step("3b/0/0", 3));
    expect(jobsOf(b)).toEqual([PING, job(2), PONG]);
    // The resent lane a step must answer job 1, which only it fetched: else job 2 runs twice and job 1
    // waits in the tick's list until its lease expires.
    const { first: again } = await callTwice(protocol.step, KEYS, step("2a/0/0", 3));
    expect(jobsOf(again)).toEqual(jobsOf(a));
  });

  it("a lane's replay answers its own jobs after the other lane's ack took out an older copy of one of their texts", async () => {
    await setup([PING, job(1), PING, job(2)], 0);
    const a = await call(protocol.step, KEYS, step("2a/0/0", 2));
    expect(jobsOf(a)).toEqual([PING, job(1)]);
    // Lane a's reply is lost. Lane b fetches the second PING; answered, the tick runs it and acks it
    // in lane b's next step, which fetches job 2. The ack takes out the oldest PING listed: lane a's.
    const b = await call(protocol.step, KEYS, step("3b/0/0", 1));
    expect(jobsOf(b)).toEqual([PING]);
    const b2 = await call(protocol.step, KEYS, step("4b/0/0", 1, [PING]));
    expect(jobsOf(b2)).toEqual([job(2)]);
    // The resent lane a step must still answer job 1 (never job 2, which lane b's step handed the tick).
    const { first: again } = await callTwice(protocol.step, KEYS, step("2a/0/0", 2));
    expect(jobsOf(again)).toContain(job(1));
    expect(jobsOf(again)).not.toContain(job(2));
  });

  it("a job one lane put back and the other fetched again: each lane's replay answers its own jobs, in either order", async () => {
    await setup([1, 2, 3, 4, 5, 6].map(job), 2);
    // Lane a puts job 1 back (unstarted: same text, head of the queue) and fetches two; lane b, sent
    // beside it, puts job 2 back and fetches two. Lane b reaches Redis first and fetches job 2 again.
    const b = await call(protocol.step, KEYS, step("3b/0/0", 2, [], [putBack(job(2))]));
    expect(jobsOf(b)).toEqual([job(2), job(3)]);
    const a = await call(protocol.step, KEYS, step("2a/0/0", 2, [], [putBack(job(1))]));
    expect(jobsOf(a)).toEqual([job(1), job(4)]);
    // Both replies are lost; the tick then acks job 2 (lane b's) in a later lane b step that fetches job 5.
    const { first: againA } = await callTwice(protocol.step, KEYS, step("2a/0/0", 2, [], [putBack(job(1))]));
    expect(againA).toEqual(a);
    const { first: againB } = await callTwice(protocol.step, KEYS, step("3b/0/0", 2, [], [putBack(job(2))]));
    expect(againB).toEqual(b);
    await call(protocol.step, KEYS, step("5b/0/0", 1, [job(2)]));
    const { first: lateA } = await callTwice(protocol.step, KEYS, step("2a/0/0", 2, [], [putBack(job(1))]));
    expect(lateA).toEqual(a);
    expect(await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1)).toEqual([job(5), job(4), job(1), job(3)]);
  });

  it("ordered ids: a lane's replay answers its ids and their payloads after the other lane acked one and fetched ids, and payloads arrived for its own", async () => {
    const enqueue = (token: string, items: [string, string, string][]) =>
      call(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs(token, items));
    await enqueue(
      "e",
      Array.from({ length: 8 }, (_, i) => [`id-${i}`, `"p${i}"`, String(i + 1)] as [string, string, string]),
    );
    const options = { tick: "t1", leaseMs: LEASE, ordered: ["idx"], batch: 2 };
    const begun = await call(protocol.begin, beginKeys(options), beginNamed(options));
    const held = idsOf(begun.ordered);
    expect(held.map((x) => x.id)).toEqual(["id-0", "id-1"]);
    const laneStep = (header: string, batch: number, done: typeof held) =>
      stepArgs({
        tick: "t1",
        leaseMs: LEASE,
        call: header,
        batch,
        ordered: { names: ["idx"], outcomes: done.map((item) => ({ kind: "succeeded" as const, item })) },
      });
    const a = await call(protocol.step, KEYS, laneStep("2a/0/0", 2, []));
    expect(idsOf(a.ordered).map((x) => x.id)).toEqual(["id-2", "id-3"]);
    // Lane a's reply is lost. A payload arrives for id-2 (held: it waits in n:id-2); lane b acks id-0
    // and fetches two more ids.
    await enqueue("e2", [["id-2", '"late"', "100"]]);
    const b = await call(protocol.step, KEYS, laneStep("3b/0/0", 2, [held[0]!]));
    expect(idsOf(b.ordered).map((x) => x.id)).toEqual(["id-4", "id-5"]);
    const { first: again } = await callTwice(protocol.step, KEYS, laneStep("2a/0/0", 2, []));
    expect(again).toEqual(a);
  });
});
