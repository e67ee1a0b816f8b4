// The metrics section of an ack (lib/metrics/record-runs.lua), run twice with
// the same arguments: a replayed ack counts nothing again — the call number
// answers a replay while the lease lives, and without the lease only jobs
// still listed are counted, which a replay no longer finds. The read
// (metrics.lua) writes nothing.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import { type AckArgs, ENQUEUE_KEYS, enqueueArgs, finishArgs, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const job = (n: number) => JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", retry: true });
const LEASE = 5_000;
const RETENTION_SEC = 3_600;

type Results = NonNullable<AckArgs["others"]["results"]>;

describe.each(adapterCases)("metrics section run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "metrics-replay");
  const { call, callTwice, readsCallTwice } = scriptCalls(h);
  const step = (acks: AckArgs) => stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks });
  const finish = (acks: AckArgs) => finishArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks });

  const fetchThree = async () => {
    await call(
      protocol.enqueue,
      ENQUEUE_KEYS,
      enqueueArgs(
        "t",
        [1, 2, 3].map((n) => ({ job: job(n) })),
      ),
    );
    await call(protocol.begin, beginKeys({ tick: "t1", leaseMs: LEASE }), beginNamed({ tick: "t1", leaseMs: LEASE }));
    return (await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1)) as [string, string, string];
  };
  // a and b succeeded (12 ms and 300 ms), c failed and retries (7 ms); waits 40, 5 and 2,000 ms.
  const acks = (a: string, b: string, c: string, o: { results?: Results; cWait?: string } = {}): AckArgs => ({
    succeeded: [{ queue: "default", place: "", jobs: [a, b] }],
    others: {
      items: [{ code: "r", queue: "default", job: c, updated: `${c.slice(0, -1)},"error_class":"E"}`, delay: 30 }],
      results: o.results,
      metrics: {
        retentionSec: RETENTION_SEC,
        // the successes as one group: summed run time and wait, buckets "K N …"
        entries: [
          { name: "x", queue: "default", entries: 2, ms: 312, waitMs: 45, durations: "3 1 7 1", waits: "4 1 1 1" },
        ],
        // the retry: name, run time, wait
        perItem: [{ name: "x", ms: "7", waitMs: o.cWait ?? "2000" }],
      },
    },
  });
  const minuteOf = (after: Record<string, unknown>) => {
    const key = Object.keys(after).find((k) => /^metrics:\d+$/.test(k));
    return key === undefined ? undefined : (after[key] as Record<string, string>);
  };
  // Buckets from 1: 12 ms → (10, 25] is 3, 300 ms → (250, 500] is 7, 7 ms → (5, 10] is 2.
  const expected = {
    "j|x|r": "3",
    "j|x|f": "1",
    "j|x|ms": "319",
    "j|x|b3": "1",
    "j|x|b7": "1",
    "j|x|b2": "1",
    "q|default|ms": "2045",
    "q|default|b4": "1",
    "q|default|b1": "1",
    "q|default|b9": "1",
  };

  it("step: a replay counts each run once", async () => {
    const [a, b, c] = await fetchThree();
    const { after } = await callTwice(protocol.step, tickKeys("t1"), step(acks(a, b, c)));
    expect(minuteOf(after)).toEqual(expected);
    expect(after["metrics:total"]).toEqual({ ...expected, "j|x|retried": "1" });
    const minute = Object.keys(after).find((k) => /^metrics:\d+$/.test(k))!;
    const ttl = await h.redis.ttl(`${h.prefix}${minute}`);
    expect(ttl).toBeGreaterThan(RETENTION_SEC - 60);
    expect(ttl).toBeLessThanOrEqual(RETENTION_SEC);
    expect(await h.redis.ttl(`${h.prefix}metrics:total`)).toBe(-1);
  });

  it("finish: a replay counts each run once", async () => {
    const [a, b, c] = await fetchThree();
    const { after } = await callTwice(protocol.finish, tickKeys("t1"), finish(acks(a, b, c)));
    expect(minuteOf(after)).toEqual(expected);
  });

  it("a lost lease: the ack counts the jobs still listed, and its replay finds none to count again", async () => {
    const [a, b, c] = await fetchThree();
    await h.redis.del(`${h.prefix}tick:t1`);
    const args = step(acks(a, b, c));
    await call(protocol.step, tickKeys("t1"), args);
    const after = await snapshot(h.redis, h.prefix);
    expect(minuteOf(after)).toEqual(expected);
    // The replay answers that it missed all three (it settled none) and changes nothing.
    const replay = await call(protocol.step, tickKeys("t1"), args);
    expect(replay).toMatchObject({ leaseHeld: false, deadEvicted: 0, fetched: [], missed: [1, 2, 3] });
    expect(await snapshot(h.redis, h.prefix)).toEqual(after);
  });

  it("an entry whose job is gone (a resurrector put it back) is not counted, nor its group's summed times", async () => {
    const [a, b, c] = await fetchThree();
    await h.redis.lrem(`${h.prefix}inproc:t1:default`, 1, b);
    await call(protocol.step, tickKeys("t1"), step(acks(a, b, c)));
    const minute = await h.redis.keys(`${h.prefix}metrics:[0-9]*`);
    expect(await h.redis.hgetall(minute[0]!)).toMatchObject({ "j|x|r": "2", "j|x|ms": "7", "q|default|ms": "2000" });
    expect(await h.redis.hget(minute[0]!, "j|x|b7")).toBeNull();
    expect(await h.redis.hget(minute[0]!, "j|x|b3")).toBeNull();
  });

  it("rides along with a results section in the same ack", async () => {
    const [a, b, c] = await fetchThree();
    const results: Results = {
      keep: 0,
      ageSec: 86_400,
      ttlMs: 3_600_000,
      entries: [{ number: 2, state: "succeeded", keep: false, jid: "j2", members: '"tickq_result":1' }],
    };
    // The results entry goes between the others and the metrics entries: step must find its fetch after both.
    const { first, after } = await callTwice(protocol.step, tickKeys("t1"), step(acks(a, b, c, { results })));
    expect(first.fetched).toEqual([]);
    expect(first.missed ?? []).toEqual([]);
    expect(minuteOf(after)).toEqual(expected);
    expect(after["result:j2"]).toMatch(/"tickq_result":1/);
  });

  it("an entry with no wait (a job pushed without enqueued_at) counts its run and no wait", async () => {
    const [a, b, c] = await fetchThree();
    await call(protocol.step, tickKeys("t1"), step(acks(a, b, c, { cWait: "" }))); // c: no wait
    const [minute] = await h.redis.keys(`${h.prefix}metrics:[0-9]*`);
    const fields = await h.redis.hgetall(minute!);
    expect(fields).toMatchObject({ "j|x|r": "3", "j|x|f": "1", "q|default|ms": "45" });
    expect(fields["q|default|b9"]).toBeUndefined();
  });

  it("the read writes nothing", async () => {
    const [a, b, c] = await fetchThree();
    await call(protocol.step, tickKeys("t1"), step(acks(a, b, c)));
    const minute = Math.floor(Date.now() / 60_000);
    const [first] = await readsCallTwice(
      protocol.metrics,
      { queues: "queues" },
      { sinceMinute: minute - 5, untilMinute: minute + 5, name: "", queue: "", totals: true },
    );
    expect(first.minutes).toHaveLength(1);
  });
});
