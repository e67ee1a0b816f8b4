// A cancel (ordered_cancel.lua) of a capped run whose rest waits behind it in p:ID, after an arrival identical
// to a payload of that rest: both were counted waiting (the rest at its enqueue, the arrival at its own, in
// n:ID), and merged they are one payload, recorded cancelled once. `payloads` must end equal to what waits.
import { describe, expect, it } from "vitest";
import type { OrderedOutcome } from "../../../src/ordered/work.js";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { type BeginOptions, beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { idsOf, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const CAPPED = ["idx 1"];

describe.each(adapterCases)("cancel of a capped run after an identical arrival, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-capped-cancel-identical");
  const { call } = scriptCalls(h);
  const enqueue = (token: string, items: [string, string, string][]) =>
    call(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs(token, items));
  const options = (tick: string): BeginOptions => ({ tick, leaseMs: LEASE, ordered: CAPPED, batch: 10 });

  it("a cancel of a capped run takes an arrival identical to one of its rest off `payloads` once: nothing waits, `payloads` is 0", async () => {
    await enqueue("e", [
      ["a", '"a1"', "1"],
      ["a", '"a2"', "2"],
      ["a", '"a3"', "3"],
    ]);
    const [run] = idsOf((await call(protocol.begin, beginKeys(options("t1")), beginNamed(options("t1")))).ordered);
    expect(run!.payloads).toEqual(['"a1"']);
    // Identical to "a2" of the rest: it waits in n:a, counted.
    expect(await enqueue("e2", [["a", '"a2"', "0.5"]])).toBe("1");
    expect(await h.redis.get(`${h.prefix}o:idx:payloads`)).toBe("3");
    await call(
      protocol.ordered_cancel,
      { ticks: "ticks" },
      {
        token: "c1",
        keepMs: 60_000,
        name: "idx",
        id: "a",
        tick: "",
        fence: "",
        records: "1",
      },
    );
    const outcomes: OrderedOutcome[] = [{ kind: "succeeded", item: run! }];
    await call(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, batch: 10, ordered: { names: CAPPED, outcomes } }),
    );
    const left = await h.redis.keys(`${h.prefix}o:idx:*`);
    expect(left.filter((k) => /:(p|n):|:ready$|:later$|:capped$/.test(k))).toEqual([]);
    expect(await h.redis.get(`${h.prefix}o:idx:payloads`)).toBe("0");
    expect(await h.redis.get(`${h.prefix}o:idx:running`)).toBe("0");
  });
});
