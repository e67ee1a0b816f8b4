// The metrics trailer of an ordered ack (lib/metrics/record-ordered-runs.lua),
// run twice with the same arguments: runs, failures, run times and waits of
// ordered ids are counted once — a replay of the tick's last call answers
// its kept reply, and an ack whose token is gone (a resurrector took the id
// back) counts nothing for that id. Ids that did not run count nothing.
import { describe, expect, it } from "vitest";
import type { OrderedOutcome } from "../../../src/ordered/work.js";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import {
  finishArgs,
  idsOf,
  ORDERED_ENQUEUE_KEYS,
  orderedEnqueueArgs,
  stepArgs,
  tickKeys,
} from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const NAMES = ["idx"];
const metrics = { retentionSec: 3_600 };

describe.each(adapterCases)("ordered metrics run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-metrics-replay");
  const { call, callTwice } = scriptCalls(h);

  // Five ids, due when enqueued; begin hands them all to tick t1.
  const fetchFive = async () => {
    await call(
      protocol.ordered_enqueue,
      ORDERED_ENQUEUE_KEYS,
      orderedEnqueueArgs(
        "tok",
        ["a", "b", "c", "d", "e"].map((id): [string, string] => [id, '"p"']),
      ),
    );
    const due = Number(await h.redis.zscore(`${h.prefix}o:idx:ready`, "a"));
    const begun = await call(protocol.begin, beginKeys({ tick: "t1", leaseMs: LEASE }), {
      ...beginNamed({ tick: "t1", leaseMs: LEASE }),
      ordered: { names: NAMES, succeeded: [], others: { items: [] } },
    });
    const [a, b, c, d, e] = idsOf(begun.ordered).sort((x, y) => x.id.localeCompare(y.id));
    return { a: a!, b: b!, c: c!, d: d!, e: e!, due };
  };
  // a succeeded (12 ms, waited 40), b retries (7 ms, waited 5), c dead (300 ms, waited 2,000),
  // d dead without running (poison), e not started.
  const outcomes = (f: Awaited<ReturnType<typeof fetchFive>>): OrderedOutcome[] => [
    { kind: "succeeded", item: f.a, ran: { durationMs: 12, startMs: f.due + 40 } },
    { kind: "retry", item: f.b, delayMs: 60_000, ran: { durationMs: 7, startMs: f.due + 5 } },
    {
      kind: "dead",
      item: f.c,
      entry: '{"id":"c"',
      handlerFailed: true,
      ran: { durationMs: 300, startMs: f.due + 2_000 },
    },
    { kind: "dead", item: f.d, entry: '{"id":"d"', handlerFailed: false },
    { kind: "unstarted", item: f.e },
  ];
  const ordered = (o: OrderedOutcome[]) => ({ names: NAMES, outcomes: o, metrics });
  const minuteOf = (after: Record<string, unknown>) => {
    const key = Object.keys(after).find((k) => /^metrics:\d+$/.test(k));
    return key === undefined ? undefined : (after[key] as Record<string, string>);
  };
  // Buckets from 1: 12 ms is 3, 7 ms is 2, 300 ms is 7; waits 40 → 4, 5 → 1, 2,000 → 9.
  const expected = {
    "j|idx|r": "3",
    "j|idx|f": "2",
    "j|idx|ms": "319",
    "j|idx|b3": "1",
    "j|idx|b2": "1",
    "j|idx|b7": "1",
    "o|idx|ms": "2045",
    "o|idx|b4": "1",
    "o|idx|b1": "1",
    "o|idx|b9": "1",
  };

  it("step: a replay counts each run once, and the runs equal what stat:processed and stat:failed count", async () => {
    const f = await fetchFive();
    const { after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, ordered: ordered(outcomes(f)) }),
    );
    expect(minuteOf(after)).toEqual(expected);
    expect(after["metrics:total"]).toEqual({ ...expected, "j|idx|retried": "1", "j|idx|dead": "1" });
    expect(after["stat:processed"]).toBe("3");
    expect(after["stat:failed"]).toBe("2");
    const minute = Object.keys(after).find((k) => /^metrics:\d+$/.test(k))!;
    expect(await h.redis.ttl(`${h.prefix}${minute}`)).toBeGreaterThan(metrics.retentionSec - 60);
  });

  it("finish: a replay counts each run once", async () => {
    const f = await fetchFive();
    const { after } = await callTwice(
      protocol.finish,
      tickKeys("t1"),
      finishArgs({ tick: "t1", leaseMs: LEASE, call: 2, ordered: ordered(outcomes(f)) }),
    );
    expect(minuteOf(after)).toEqual(expected);
  });

  // One enqueue call's ids share a due, and runs share run times and starts: each distinct text is
  // read as a number once a call (lib/metrics/record-ordered-runs.lua), each run still counts its own.
  it("finish: runs sharing run times, starts and a due each count their own, once, run twice", async () => {
    const f = await fetchFive();
    const ran = (durationMs: number, waited: number) => ({ durationMs, startMs: f.due + waited });
    const shared: OrderedOutcome[] = [
      { kind: "succeeded", item: f.a, ran: ran(12, 40) },
      { kind: "succeeded", item: f.b, ran: ran(12, 40) },
      { kind: "succeeded", item: f.c, ran: ran(7, 40) },
      { kind: "succeeded", item: f.d, ran: ran(12, 5) },
      { kind: "succeeded", item: f.e, ran: ran(5, 40) },
    ];
    const { after } = await callTwice(
      protocol.finish,
      tickKeys("t1"),
      finishArgs({ tick: "t1", leaseMs: LEASE, call: 2, ordered: ordered(shared) }),
    );
    expect(minuteOf(after)).toEqual({
      "j|idx|r": "5",
      "j|idx|ms": "48",
      "j|idx|b3": "3",
      "j|idx|b2": "1",
      "j|idx|b1": "1",
      "o|idx|ms": "165",
      "o|idx|b4": "4",
      "o|idx|b1": "1",
    });
  });

  // No-op handlers run in 0 ms, and a run may start in the ms it came due: a sum of 0 is no field
  // (as plain jobs' metrics), and the stats read it as 0.
  it("finish: runs of 0 ms that waited 0 ms count their runs and buckets, no sum of 0, run twice", async () => {
    const f = await fetchFive();
    const ran = { durationMs: 0, startMs: f.due };
    const instant: OrderedOutcome[] = [f.a, f.b, f.c, f.d, f.e].map((item) => ({ kind: "succeeded", item, ran }));
    const { after } = await callTwice(
      protocol.finish,
      tickKeys("t1"),
      finishArgs({ tick: "t1", leaseMs: LEASE, call: 2, ordered: ordered(instant) }),
    );
    expect(minuteOf(after)).toEqual({ "j|idx|r": "5", "j|idx|b1": "5", "o|idx|b1": "5" });
    expect(after["metrics:total"]).toEqual({ "j|idx|r": "5", "j|idx|b1": "5", "o|idx|b1": "5" });
  });

  // Successes that measured alike go as one entry counting them (src/ordered/work.ts): each held run
  // of it counts, one whose token is gone does not, and the others' measures after the entries count.
  it("step: successes measured alike count each held run once, beside other outcomes, run twice", async () => {
    const f = await fetchFive();
    await h.redis.hdel(`${h.prefix}oinproc:t1`, "idx b");
    const ran = { durationMs: 12, startMs: f.due + 40 };
    const mixed: OrderedOutcome[] = [
      { kind: "succeeded", item: f.a, ran },
      { kind: "succeeded", item: f.b, ran },
      { kind: "succeeded", item: f.c, ran },
      { kind: "retry", item: f.d, delayMs: 60_000, ran: { durationMs: 7, startMs: f.due + 5 } },
      { kind: "unstarted", item: f.e },
    ];
    const { after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, ordered: ordered(mixed) }),
    );
    expect(minuteOf(after)).toEqual({
      "j|idx|r": "3",
      "j|idx|f": "1",
      "j|idx|ms": "31",
      "j|idx|b3": "2",
      "j|idx|b2": "1",
      "o|idx|ms": "85",
      "o|idx|b4": "2",
      "o|idx|b1": "1",
    });
    expect(after["stat:processed"]).toBe("3");
  });

  it("an id whose token is gone (a resurrector took it back) counts nothing, and a lost lease's replay nothing again", async () => {
    const f = await fetchFive();
    await h.redis.hdel(`${h.prefix}oinproc:t1`, "idx c");
    await h.redis.del(`${h.prefix}tick:t1`);
    const args = stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, ordered: ordered(outcomes(f)) });
    await call(protocol.step, tickKeys("t1"), args);
    const after = await snapshot(h.redis, h.prefix);
    expect(minuteOf(after)).toEqual({
      "j|idx|r": "2",
      "j|idx|f": "1",
      "j|idx|ms": "19",
      "j|idx|b3": "1",
      "j|idx|b2": "1",
      "o|idx|ms": "45",
      "o|idx|b4": "1",
      "o|idx|b1": "1",
    });
    await call(protocol.step, tickKeys("t1"), args);
    expect(await snapshot(h.redis, h.prefix)).toEqual(after);
  });

  it("without the trailer (metrics: false) nothing is written", async () => {
    const f = await fetchFive();
    await call(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, ordered: { names: NAMES, outcomes: outcomes(f) } }),
    );
    expect(await h.redis.keys(`${h.prefix}metrics:*`)).toEqual([]);
  });
});
