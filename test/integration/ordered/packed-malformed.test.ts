// The one reader of packed sections (lib/common/packed.lua), as ordered_enqueue and the ordered ack
// use it: a packed value that does not hold the items its head announces (one value short, one item
// more, a value missing at the end) is an error raised before the script writes anything.
import { describe, expect, it } from "vitest";
import { encode, JOIN_SEPARATOR } from "../../../src/protocol/define.js";
import * as protocol from "../../../src/protocol/index.js";
import type { OrderedOutcome } from "../../../src/ordered/work.js";
import { adapterCase } from "../../helpers/adapters.js";
import { beginKeys, beginNamed, type BeginOptions } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import { finishArgs, idsOf, ORDERED_ENQUEUE_KEYS, tickKeys } from "../../helpers/tick-calls.js";

const sep = JOIN_SEPARATOR;

describe("a malformed packed section", () => {
  const h = useHarness(adapterCase("ioredis"), "ordered-packbad");
  const { call, run } = scriptCalls(h);

  const enqueueArgs = {
    token: "e1",
    tokenMs: 60_000,
    payloads: ["a", "b"].map((id) => ({ name: "pk", id, payload: `"${id}"`, score: "", delayMs: 0 })),
  };

  it.each([
    ["announces a value more than it holds", (head: string, s: string) => [`j${Number(head.slice(1)) + 1}`, s]],
    ["lacks its last value", (head: string, s: string) => [head, s.slice(0, s.lastIndexOf(sep))]],
    [
      "holds an item more than its count",
      (head: string, s: string) => [head, `${s}${sep}pk${sep}c${sep}1${sep}${sep}0`],
    ],
  ])("an enqueue whose packed payloads %s fails, writing nothing", async (_, tamper) => {
    const sent = encode(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, enqueueArgs);
    const args = sent.args.map(String);
    const [head, s] = tamper(args[2]!, args[3]!);
    await expect(run(protocol.ordered_enqueue.script, sent.keys, [args[0]!, args[1]!, head!, s!])).rejects.toThrow(
      /ordered payloads: /,
    );
    expect(await snapshot(h.redis, h.prefix)).toEqual({});
  });

  it("an ack whose packed ids lack a fence fails, settling nothing", async () => {
    await call(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, enqueueArgs);
    const options: BeginOptions = { tick: "t1", leaseMs: 60_000, ordered: ["pk"], batch: 10 };
    const items = idsOf((await call(protocol.begin, beginKeys(options), beginNamed(options))).ordered);
    expect(items).toHaveLength(2);
    const outcomes: OrderedOutcome[] = items.map((item) => ({ kind: "succeeded", item }));
    const sent = encode(
      protocol.finish,
      tickKeys("t1"),
      finishArgs({ tick: "t1", leaseMs: 60_000, call: 2, ordered: { names: ["pk"], outcomes } }),
    );
    const args = sent.args.map(String);
    const at = args.indexOf("j5");
    expect(at).toBeGreaterThan(0);
    args[at + 1] = args[at + 1]!.slice(0, args[at + 1]!.lastIndexOf(sep));
    const before = await snapshot(h.redis, h.prefix);
    await expect(run(protocol.finish.script, sent.keys, args)).rejects.toThrow(/ordered acks: /);
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
  });
});
