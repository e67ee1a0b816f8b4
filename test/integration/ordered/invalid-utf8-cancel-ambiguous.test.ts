// A cancel by an id as read (U+FFFD in place of bytes that are not UTF-8, ordered_cancel.lua stored_id)
// names more than one stored id when two ids differ only in such bytes ("a\xff", "a\xfe": both read
// "a\uFFFD"): it must take neither (a CONFLICT that says so; the script run twice: test/integration/replay/ordered-cancel-as-read-twice.test.ts), not whichever
// the scan met first. An id stored as named (a well-formed id holding U+FFFD) is the one it takes.
import { describe, expect, it } from "vitest";
import { adapterCase } from "../../helpers/adapters.js";
import { moveUnderRawId } from "../../helpers/foreign-ordered-id.js";
import { useHarness } from "../../helpers/harness.js";

const READ = "a\uFFFD";
const FF = Buffer.from([0x61, 0xff]);
const FE = Buffer.from([0x61, 0xfe]);

describe("a cancel by an id as read that two stored ids read alike", () => {
  const h = useHarness(adapterCase("ioredis"), "ordered-utf8-ambig");

  /** Enqueues `from` with `from` as its payload, then moves it under the raw id `raw`. */
  async function foreignId(enqueue: (id: string, payload: unknown) => Promise<void>, from: string, raw: Buffer) {
    await enqueue(from, from);
    await moveUnderRawId(h.redis, h.prefix, "idx", from, raw);
  }
  const waiting = async () =>
    (await h.redis.zrangeBuffer(`${h.prefix}o:idx:ready`, "0", "-1")).map((b) => b.toString("hex")).sort();

  it("both waiting: cancels neither, a CONFLICT", async () => {
    const tq = h.make({}, { ordered: { idx: { perform: () => undefined } } });
    await foreignId((id, payload) => tq.enqueueOrdered("idx", { id, payload }), "x", FF);
    await foreignId((id, payload) => tq.enqueueOrdered("idx", { id, payload }), "y", FE);
    await expect(tq.jobs.cancelOrdered("idx", READ)).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await waiting()).toEqual([FE.toString("hex"), FF.toString("hex")]);
    expect(await h.redis.zcard(`${h.prefix}cancelled`)).toBe(0);
  });

  it("a well-formed id holding U+FFFD is the one taken, not a stored id that reads alike", async () => {
    const tq = h.make({}, { ordered: { idx: { perform: () => undefined } } });
    await foreignId((id, payload) => tq.enqueueOrdered("idx", { id, payload }), "x", FF);
    await tq.enqueueOrdered("idx", { id: READ, payload: 1 });
    expect(await tq.jobs.cancelOrdered("idx", READ)).toMatchObject({ state: "cancelled", from: "queued", payloads: 1 });
    expect(await waiting()).toEqual([FF.toString("hex")]);
  });
});
