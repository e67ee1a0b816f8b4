// The scripts the cancel of ordered ids adds or changes, run twice with the
// same arguments (a client resending a call whose reply was lost):
// ordered_cancel.lua takes a waiting id out once, and marks a held run once
// (cancelling what waits behind it once); a step or finish that settles a
// marked run, and a resurrect that finds one, record it cancelled once, in
// the `cancelled` history beside plain jobs; a step or finish answers the
// runs it settled as cancelled once (its replay answers the kept reply).
import { describe, expect, it } from "vitest";
import type { OrderedOutcome } from "../../../src/ordered/work.js";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
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
const TICKS = { ticks: "ticks" };
const members = (zset: unknown) => (zset as string[]).filter((_, i) => i % 2 === 0);
/** The ordered records in the `cancelled` history, parsed. */
const records = (zset: unknown) =>
  members(zset ?? []).map(
    (t) =>
      JSON.parse(t) as {
        jid: string;
        class: string;
        args: [string, unknown[]];
        tickq_cancelled_from: string;
        tickq_ordered: { fence?: number; scores: number[] };
      },
  );

describe.each(adapterCases)("ordered cancel scripts run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-cancel-replay");
  const { call, callTwice } = scriptCalls(h);

  const enqueue = (token: string, id: string, payload: string) =>
    call(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs(token, [[id, payload]]));
  const begin = async (tick: string) => {
    const o = { tick, leaseMs: LEASE, ordered: NAMES };
    return idsOf((await call(protocol.begin, beginKeys(o), beginNamed(o))).ordered);
  };
  const cancelArgs = (token: string, id: string, tick = "", fence = "", withRecords = "") => ({
    token,
    keepMs: 60_000,
    name: "idx",
    id,
    tick,
    fence,
    records: withRecords,
  });

  it("ordered_cancel.lua: a waiting id is taken out and recorded once; a new call finds nothing", async () => {
    await enqueue("e1", "a", '"one"');
    await enqueue("e2", "a", '"two"');
    const { first, after } = await callTwice(protocol.ordered_cancel, TICKS, cancelArgs("c1", "a", "", "", "1"));
    const [words, record] = first.split("\n");
    expect(words).toBe("cancelled queued 2 c1");
    expect(after["o:idx:ready"]).toBeUndefined();
    expect(after["o:idx:p:a"]).toBeUndefined();
    expect(after["o:idx:payloads"]).toBe("0");
    expect(after["stat:cancelled"]).toBe("1");
    expect(members(after.cancelled)).toEqual([record]);
    expect(records(after.cancelled)).toMatchObject([
      { jid: "c1", class: "idx", args: ["a", ["one", "two"]], tickq_cancelled_from: "queued" },
    ]);
    expect(await call(protocol.ordered_cancel, TICKS, cancelArgs("c2", "a"))).toBe("none");
  });

  it("ordered_cancel.lua: a held run is marked once, with what waited behind it; a later payload stays", async () => {
    await enqueue("e1", "a", '"run"');
    const [run] = await begin("t1");
    await enqueue("e2", "a", '"behind"');
    const { first, after } = await callTwice(protocol.ordered_cancel, TICKS, cancelArgs("c1", "a"));
    expect(first).toBe(`marked t1 ${run!.fence} 1 o-${run!.fence}-idx c1`);
    expect(after["cancel:t1"]).toEqual({ [`o idx ${run!.fence} a`]: "0" });
    expect(after["o:idx:n:a"]).toBeUndefined();
    expect(after["o:idx:later"]).toBeUndefined();
    expect(records(after.cancelled).map((r) => [r.jid, r.args])).toEqual([["c1", ["a", ["behind"]]]]);
    // A payload enqueued after the cancel is not taken by a later look at the run.
    await enqueue("e3", "a", '"after"');
    expect(await call(protocol.ordered_cancel, TICKS, cancelArgs("c2", "a", "t1", String(run!.fence)))).toBe(
      `marked t1 ${run!.fence} 0 o-${run!.fence}-idx`,
    );
    expect(await h.redis.zrange(`${h.prefix}o:idx:n:a`, "0", "-1")).toEqual(['"after"']);
  });

  it("step: a marked run acked as succeeded is recorded cancelled once; the arrivals after it become ready", async () => {
    await enqueue("e1", "a", '"run"');
    const [run] = await begin("t1");
    await call(protocol.ordered_cancel, TICKS, cancelArgs("c1", "a"));
    await enqueue("e2", "a", '"after"');
    const outcomes: OrderedOutcome[] = [{ kind: "succeeded", item: run! }];
    const { first, after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, batch: 0, ordered: { names: NAMES, outcomes } }),
    );
    expect(first.cancels ?? []).toEqual([]);
    expect(first.orderedCancelled).toEqual([`idx ${run!.fence}`]);
    expect(after["cancel:t1"]).toBeUndefined();
    expect(after["oinproc:t1"]).toBeUndefined();
    expect(after["o:idx:running"]).toBe("0");
    expect(after["stat:cancelled"]).toBe("1");
    expect(after["stat:processed"]).toBeUndefined();
    expect(members(after["o:idx:ready"])).toEqual(["a"]);
    expect(after["o:idx:p:a"]).toEqual(['"after"', expect.any(String)]);
    expect(records(after.cancelled)).toMatchObject([
      {
        jid: `o-${run!.fence}-idx`,
        tickq_ordered: { fence: run!.fence },
        tickq_cancelled_from: "running",
        args: ["a", ["run"]],
      },
    ]);
  });

  it("finish: a run the tick acks as cancelled ('c') is recorded once", async () => {
    await enqueue("e1", "a", '"run"');
    const [run] = await begin("t1");
    await call(protocol.ordered_cancel, TICKS, cancelArgs("c1", "a"));
    const outcomes: OrderedOutcome[] = [{ kind: "cancelled", item: run! }];
    const { first, after } = await callTwice(
      protocol.finish,
      tickKeys("t1"),
      finishArgs({ tick: "t1", leaseMs: LEASE, call: 3, ordered: { names: NAMES, outcomes } }),
    );
    expect(first.orderedCancelled).toEqual([`idx ${run!.fence}`]);
    expect(after["stat:cancelled"]).toBe("1");
    expect(after["stat:processed"]).toBeUndefined();
    expect(after["cancel:t1"]).toBeUndefined();
    expect(after["o:idx:running"]).toBe("0");
    expect(records(after.cancelled).map((r) => r.jid)).toEqual([`o-${run!.fence}-idx`]);
  });

  it("begin's resurrect: a marked run of a dead tick is recorded cancelled once, never put back", async () => {
    await enqueue("e1", "a", '"run"');
    await begin("t1");
    await call(protocol.ordered_cancel, TICKS, cancelArgs("c1", "a"));
    await h.redis.del(`${h.prefix}tick:t1`, `${h.prefix}resurrector`); // t1 died
    const o = { tick: "t2", leaseMs: LEASE, ordered: NAMES };
    const { first, after } = await callTwice(protocol.begin, beginKeys(o), beginNamed(o));
    expect(idsOf(first.ordered)).toEqual([]);
    expect(after["o:idx:ready"]).toBeUndefined();
    expect(after["oinproc:t1"]).toBeUndefined();
    expect(after["cancel:t1"]).toBeUndefined();
    expect(after["stat:cancelled"]).toBe("1");
    expect(records(after.cancelled).map((r) => r.tickq_cancelled_from)).toEqual(["running"]);
  });
});
