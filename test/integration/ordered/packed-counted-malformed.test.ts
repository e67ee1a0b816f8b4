// The counted form of a packed section (one ARGV value a value: what an older client sends, and what
// any client sends when a value holds the separator), read by lib/common/packed.lua: a count that
// announces more or fewer payloads than ARGV holds, or one that is not a whole number, is an error raised
// before ordered_enqueue writes anything (its token included: a resend must not find it taken and
// enqueue nothing).
import { describe, expect, it } from "vitest";
import { encode } from "../../../src/protocol/define.js";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCase } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import { ORDERED_ENQUEUE_KEYS } from "../../helpers/tick-calls.js";

describe("a malformed counted section", () => {
  const h = useHarness(adapterCase("ioredis"), "ordered-countbad");
  const { run } = scriptCalls(h);
  const { keys } = encode(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, { token: "e", tokenMs: 1, payloads: [] });
  const values = ["pk", "a", '"a"', "", 0, "pk", "b", '"b"', "", 0];

  it.each([
    ["announces a payload more than it holds", 3],
    ["announces a huge count", 1e15],
    ["announces a negative count", -1],
    ["announces a fractional count", 1.5],
    ["announces a payload fewer than it holds", 1],
    ["is not a number", "x"],
  ])("an enqueue whose count %s fails, writing nothing", async (_, count) => {
    await expect(run(protocol.ordered_enqueue.script, keys, [`e${count}`, 60_000, count, ...values])).rejects.toThrow();
    expect(await snapshot(h.redis, h.prefix)).toEqual({});
  });
});
