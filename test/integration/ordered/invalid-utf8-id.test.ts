// An ordered id whose stored bytes are not UTF-8 (written by something other than tickq: tickq's own
// enqueue takes only well-formed ids) is read as U+FFFD by every adapter, and acked so. Its run is found
// by its fence (lib/ordered/ack-ids.lua stored_id): a success, a retry or a dead end settles it, where
// it stayed held, its tick's token left, resurrected and run again without end. Run twice, the ack
// settles it once. A death while it ran alone counts for it (its solo record names it as read), and a cancel
// by its id as read finds it waiting or running.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import type { OrderedOutcome } from "../../../src/ordered/work.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed, type BeginOptions } from "../../helpers/begin-args.js";
import { moveUnderRawId } from "../../helpers/foreign-ordered-id.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { finishArgs, idsOf, tickKeys } from "../../helpers/tick-calls.js";

const RAW = Buffer.from([0x61, 0xff]);
const READ = "a\uFFFD";

describe.each(adapterCases)("an ordered id of bytes that are not UTF-8 over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-bad-utf8");
  const { call, callTwice } = scriptCalls(h);

  /** Enqueues id "a" with `payloads`, then moves it under the id "a\xff", as a foreign writer would leave it. */
  async function foreignId(enqueue: (id: string, payload: unknown) => Promise<void>, payloads: unknown[]) {
    for (const payload of payloads) await enqueue("a", payload);
    await moveUnderRawId(h.redis, h.prefix, "idx", "a", RAW);
  }
  const inproc = () => h.redis.keys(`${h.prefix}oinproc:*`);

  it("a success settles it: no token left, nothing running", async () => {
    const seen: [string, unknown[]][] = [];
    const tq = h.make({}, { ordered: { idx: { perform: (id: string, p: unknown[]) => void seen.push([id, p]) } } });
    await foreignId((id, payload) => tq.enqueueOrdered("idx", { id, payload }), [1, 2]);
    expect(await tq.tick()).toMatchObject({ fetched: 1, succeeded: 1 });
    expect(seen).toEqual([[READ, [1, 2]]]);
    expect((await tq.stats()).ordered.idx).toEqual({ waiting: 0, running: 0, payloads: 0, dead: 0 });
    expect(await inproc()).toEqual([]);
  });

  it("a retry puts it back under its stored id, and a dead end keeps its payloads", async () => {
    const tq = h.make(
      {},
      {
        ordered: {
          idx: {
            retry: 1,
            backoff: () => 0,
            perform: () => {
              throw new Error("no");
            },
          },
        },
      },
    );
    await foreignId((id, payload) => tq.enqueueOrdered("idx", { id, payload }), ["x"]);
    expect(await tq.tick()).toMatchObject({ fetched: 1, retried: 1 });
    expect(await h.redis.hgetBuffer(`${h.prefix}o:idx:retries`, RAW)).toEqual(Buffer.from("1"));
    expect(await h.redis.zscoreBuffer(`${h.prefix}o:idx:ready`, RAW)).not.toBeNull();
    expect(await tq.tick()).toMatchObject({ fetched: 1, dead: 1 });
    const [entry] = await h.redis.zrange(`${h.prefix}o:idx:dead`, "0", "-1");
    expect(JSON.parse(entry!)).toMatchObject({ id: READ, payloads: ["x"] });
    expect((await tq.stats()).ordered.idx).toEqual({ waiting: 0, running: 0, payloads: 0, dead: 1 });
    expect(await inproc()).toEqual([]);
  });

  it("its ack, run twice, settles it once", async () => {
    const tq = h.make({}, { ordered: { idx: { perform: () => undefined } } });
    await foreignId((id, payload) => tq.enqueueOrdered("idx", { id, payload }), [1]);
    const options: BeginOptions = { tick: "t1", leaseMs: 60_000, ordered: ["idx"], batch: 10 };
    const items = idsOf((await call(protocol.begin, beginKeys(options), beginNamed(options))).ordered);
    expect(items.map((x) => x.id)).toEqual([READ]);
    const outcomes: OrderedOutcome[] = items.map((item) => ({ kind: "succeeded", item }));
    const args = finishArgs({ tick: "t1", leaseMs: 60_000, call: 2, ordered: { names: ["idx"], outcomes } });
    const { after } = await callTwice(protocol.finish, tickKeys("t1"), args);
    expect(after["oinproc:t1"]).toBeUndefined();
    expect(after["o:idx:held"]).toBeUndefined();
    expect(after["o:idx:running"]).toBe("0");
    expect(after["stat:processed"]).toBe("1");
  });

  it("a death while it ran alone is counted for it (its solo record names it as read)", async () => {
    const enqueuer = h.make({}, { ordered: { idx: { perform: () => undefined } } });
    const tq = h.make({}, { queues: ["elsewhere"] }); // resurrects, serves no ordered name
    await foreignId((id, payload) => enqueuer.enqueueOrdered("idx", { id, payload }), [1]);
    const options: BeginOptions = { tick: "t1", leaseMs: 300, ordered: ["idx"], batch: 1 };
    const items = idsOf((await call(protocol.begin, beginKeys(options), beginNamed(options))).ordered);
    expect(items.map((x) => x.id)).toEqual([READ]);
    // The record a step writes before the id runs alone (src/ordered/in-tick.ts soloMarker); then the tick dies.
    await h.redis.hset(`${h.prefix}solo`, "t1", `oidx ${READ}`);
    await new Promise((r) => setTimeout(r, 400));
    expect(await tq.tick()).toMatchObject({ resurrected: 1 });
    expect(await h.redis.hgetBuffer(`${h.prefix}o:idx:resurrections`, RAW)).toEqual(Buffer.from("1"));
    expect(await h.redis.hgetBuffer(`${h.prefix}o:idx:suspects`, RAW)).toEqual(Buffer.from("1"));
    expect(await h.redis.zscoreBuffer(`${h.prefix}o:idx:ready`, RAW)).not.toBeNull();
  });

  it("cancel by its id as read takes it out while it waits", async () => {
    const tq = h.make({}, { ordered: { idx: { perform: () => undefined } } });
    await foreignId((id, payload) => tq.enqueueOrdered("idx", { id, payload }), [1, 2]);
    expect(await tq.jobs.cancelOrdered("idx", READ)).toMatchObject({ state: "cancelled", from: "queued", payloads: 2 });
    expect(await h.redis.zcard(`${h.prefix}o:idx:ready`)).toBe(0);
    expect((await tq.stats()).ordered.idx).toEqual({ waiting: 0, running: 0, payloads: 0, dead: 0 });
    expect(await tq.tick()).toMatchObject({ fetched: 0 });
  });

  it("cancel by its id as read (run twice) marks its run, and the tick's ack settles it cancelled", async () => {
    const tq = h.make({}, { ordered: { idx: { perform: () => undefined } } });
    await foreignId((id, payload) => tq.enqueueOrdered("idx", { id, payload }), [1]);
    const options: BeginOptions = { tick: "t1", leaseMs: 60_000, ordered: ["idx"], batch: 10 };
    const items = idsOf((await call(protocol.begin, beginKeys(options), beginNamed(options))).ordered);
    expect(items.map((x) => x.id)).toEqual([READ]);
    const cancel = { ticks: "ticks" };
    const asked = { token: "c1", keepMs: 60_000, name: "idx", id: READ, tick: "", fence: "", records: "" };
    const words = String((await callTwice(protocol.ordered_cancel, cancel, asked)).first).split(" ");
    expect(words.slice(0, 3)).toEqual(["marked", "t1", String(items[0]!.fence)]);
    const outcomes: OrderedOutcome[] = items.map((item) => ({ kind: "succeeded", item }));
    const args = finishArgs({ tick: "t1", leaseMs: 60_000, call: 2, ordered: { names: ["idx"], outcomes } });
    const { after } = await callTwice(protocol.finish, tickKeys("t1"), args);
    expect(after["stat:cancelled"]).toBe("1");
    expect(after["stat:processed"]).toBeUndefined();
    expect(after["oinproc:t1"]).toBeUndefined();
    expect(after["o:idx:running"]).toBe("0");
  });
});
