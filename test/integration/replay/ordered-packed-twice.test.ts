// ordered_enqueue's payloads and the ordered ack's ids and fences go packed (src/protocol/define.ts
// `packed`: "j<values>", then the values in one ARGV value), or counted, one value each, when a value
// holds the separator (an id written past the client's checks). Either way, run twice with the same
// arguments, the call stores (or settles) the same, and the second run changes nothing.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { encode } from "../../../src/protocol/define.js";
import type { OrderedOutcome } from "../../../src/ordered/work.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed, type BeginOptions } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { finishArgs, idsOf, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const NAMES = ["idx"];
const SEPARATOR = "\u001e";

describe.each(adapterCases)("ordered payloads and acks, packed or counted, run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-packed");
  const { call, callTwice } = scriptCalls(h);
  const options = (tick: string): BeginOptions => ({ tick, leaseMs: LEASE, ordered: NAMES, batch: 10 });

  it.each([
    ["packed", ["a", "b"]],
    ["counted (an id holds the separator)", ["a", `x${SEPARATOR}y`]],
  ])("%s: enqueue stores each payload once, and the ack settles every id", async (_form, ids) => {
    const enqueueArgs = orderedEnqueueArgs(
      "e",
      ids.map((id, i) => [id, `"p${i}"`, String(i + 1)] as [string, string, string]),
    );
    // The form this case means to run is the one sent.
    const sent = encode(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, enqueueArgs).args;
    expect(sent.some((v) => v === "j11")).toBe(!ids.some((id) => id.includes(SEPARATOR)));
    const enqueued = await callTwice(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, enqueueArgs);
    expect(enqueued.first).toBe("11");
    for (const [i, id] of ids.entries())
      expect(await h.redis.zrange(`${h.prefix}o:idx:p:${id}`, "0", "-1", "WITHSCORES")).toEqual([
        `"p${i}"`,
        String(i + 1),
      ]);
    expect(await h.redis.get(`${h.prefix}o:idx:payloads`)).toBe("2");

    const begun = await call(protocol.begin, beginKeys(options("t1")), beginNamed(options("t1")));
    const items = idsOf(begun.ordered);
    expect(items.map((x) => x.id)).toEqual(ids);
    const outcomes: OrderedOutcome[] = items.map((item) => ({ kind: "succeeded", item }));
    const args = finishArgs({ tick: "t1", leaseMs: LEASE, call: 2, ordered: { names: NAMES, outcomes } });
    const { after } = await callTwice(protocol.finish, tickKeys("t1"), args);
    for (const id of ids) expect(after[`o:idx:p:${id}`]).toBeUndefined();
    expect(after["oinproc:t1"]).toBeUndefined();
    expect(after["o:idx:held"]).toBeUndefined();
    expect(after["o:idx:running"]).toBe("0");
    expect(after["stat:processed"]).toBe("2");
  });
});
