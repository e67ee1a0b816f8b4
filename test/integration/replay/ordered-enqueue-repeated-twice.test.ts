// ordered_enqueue notes the top score of a key it sequenced within the ms (lib/ordered/sequence-score.lua)
// only when some id has two payloads or more in the call: only then does a later payload of the call read
// that key's top again. Run twice with the same arguments, a repeated id's payloads keep the order the call
// gave them, ids given once are stored as before, and the second run adds nothing.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs } from "../../helpers/tick-calls.js";

describe.each(adapterCases)("ordered_enqueue with an id given more than once, run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-enqueue-repeated-replay");
  const { call, callTwice } = scriptCalls(h);
  const payloadsOf = async (id: string) => h.redis.zrange(`${h.prefix}o:idx:p:${id}`, "0", "-1");

  it("an id three times among ids given once: its payloads run in the call's order, not their text's", async () => {
    const items: [string, string][] = [
      ["a", '"9"'],
      ["b", '"x"'],
      ["a", '"10"'],
      ["c", '"y"'],
      ["a", '"8"'],
    ];
    const { first } = await callTwice(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs("rep", items));
    expect(first).toBe("11111");
    expect(await payloadsOf("a")).toEqual(['"9"', '"10"', '"8"']);
    expect([await payloadsOf("b"), await payloadsOf("c")]).toEqual([['"x"'], ['"y"']]);
    expect(await h.redis.get(`${h.prefix}o:idx:payloads`)).toBe("5");
  });

  it("ids given once, some already waiting: each new payload after the waiting ones, none twice", async () => {
    await call(
      protocol.ordered_enqueue,
      ORDERED_ENQUEUE_KEYS,
      orderedEnqueueArgs("seed", [
        ["a", '"2"'],
        ["b", '"2"'],
      ]),
    );
    const items: [string, string][] = [
      ["a", '"1"'],
      ["b", '"2"'],
      ["c", '"1"'],
    ];
    const { first } = await callTwice(
      protocol.ordered_enqueue,
      ORDERED_ENQUEUE_KEYS,
      orderedEnqueueArgs("once", items),
    );
    expect(first).toBe("101");
    expect(await payloadsOf("a")).toEqual(['"2"', '"1"']);
    expect(await payloadsOf("b")).toEqual(['"2"']);
    expect(await payloadsOf("c")).toEqual(['"1"']);
    expect(await h.redis.get(`${h.prefix}o:idx:payloads`)).toBe("4");
  });
});
