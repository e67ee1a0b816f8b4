// ordered_cancel.lua by an id as read (U+FFFD in place of bytes that are not UTF-8) that two stored ids
// read alike ("a\xff" held by a tick, "a\xfe" waiting), run twice with the same arguments: the first look
// answers 'ambiguous 2' and writes nothing but its kept reply; a later look at a run (its tick and fence
// given, as the client polls) marks the run that tick holds under that fence, once.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCase } from "../../helpers/adapters.js";
import { beginKeys, beginNamed, type BeginOptions } from "../../helpers/begin-args.js";
import { moveUnderRawId } from "../../helpers/foreign-ordered-id.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { idsOf } from "../../helpers/tick-calls.js";

const READ = "a\uFFFD";
const FF = Buffer.from([0x61, 0xff]);
const FE = Buffer.from([0x61, 0xfe]);

describe("ordered_cancel by an id as read that two stored ids read alike, twice", () => {
  const h = useHarness(adapterCase("ioredis"), "ordered-cancel-asread");
  const { call, callTwice } = scriptCalls(h);

  /** Enqueues `from` with `from` as its payload, then moves it under the raw id `raw`. */
  async function foreignId(enqueue: (id: string, payload: unknown) => Promise<void>, from: string, raw: Buffer) {
    await enqueue(from, from);
    await moveUnderRawId(h.redis, h.prefix, "idx", from, raw);
  }
  const waiting = async () =>
    (await h.redis.zrangeBuffer(`${h.prefix}o:idx:ready`, "0", "-1")).map((b) => b.toString("hex"));

  async function heldAndWaiting() {
    const tq = h.make({}, { ordered: { idx: { perform: () => undefined } } });
    await foreignId((id, payload) => tq.enqueueOrdered("idx", { id, payload }), "x", FF);
    const options: BeginOptions = { tick: "t1", leaseMs: 60_000, ordered: ["idx"], batch: 10 };
    const items = idsOf((await call(protocol.begin, beginKeys(options), beginNamed(options))).ordered);
    expect(items).toHaveLength(1);
    await foreignId((id, payload) => tq.enqueueOrdered("idx", { id, payload }), "y", FE);
    return items[0]!;
  }

  it("the first look answers ambiguous, marks and takes nothing", async () => {
    await heldAndWaiting();
    const asked = { token: "c1", keepMs: 60_000, name: "idx", id: READ, tick: "", fence: "", records: "" };
    const { first, after } = await callTwice(protocol.ordered_cancel, { ticks: "ticks" }, asked);
    expect(first).toBe("ambiguous 2");
    expect(Object.keys(after).filter((k) => k.startsWith("cancel"))).toEqual([]);
    expect(await waiting()).toEqual([FE.toString("hex")]);
  });

  it("a look at a run by its tick and fence marks the run that tick holds, not the waiting id", async () => {
    const item = await heldAndWaiting();
    const fence = String(item.fence);
    const asked = { token: "c2", keepMs: 60_000, name: "idx", id: READ, tick: "t1", fence, records: "" };
    const { first, after } = await callTwice(protocol.ordered_cancel, { ticks: "ticks" }, asked);
    expect(String(first).split(" ").slice(0, 3)).toEqual(["marked", "t1", fence]);
    expect(after.cancelled).toBeUndefined();
    expect(await waiting()).toEqual([FE.toString("hex")]);
  });
});
