// What an ordered id's cancel leaves, as for a plain job's: a record in the
// `cancelled` history that tq.jobs.find, list("cancelled") and result show
// (jid from cancelOrdered's `jids`; args [id, payloads]; within the same
// bounds as plain records, in the same set), and one `cancelled` event per
// record: fired by the caller for what it took at once (a waiting id, the
// payloads behind a run), by the tick for a run it settled as cancelled,
// even one whose handler returned after the mark.
import { describe, expect, it } from "vitest";
import type { CancelledEvent, OrderedContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describe.each(adapterCases)("history and events of ordered cancels over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cancel-ordered-history");

  it("a waiting id: one cancelled event from the caller; find, list, result and delete see its record", async () => {
    const events: CancelledEvent[] = [];
    const tq = h.make(
      { plain: () => {} },
      { on: { cancelled: (e) => void events.push(e) }, ordered: { idx: { perform: () => {} } } },
    );
    const plainJid = await tq.enqueue("plain", [1], { kick: false });
    await tq.jobs.cancel(plainJid);
    await sleep(5);
    await tq.enqueueOrdered("idx", { id: "a b", payload: { v: 1 }, score: 1 });
    await tq.enqueueOrdered("idx", { id: "a b", payload: { v: 2 }, score: 2 });
    const answer = await tq.jobs.cancelOrdered("idx", "a b");
    expect(answer).toMatchObject({ state: "cancelled", from: "queued", payloads: 2 });
    const [jid] = answer.jids;
    expect(events.map((e) => e.jid)).toEqual([plainJid, jid]);
    expect(events[1]).toMatchObject({
      jid,
      name: "idx",
      queue: "",
      args: ["a b", [{ v: 1 }, { v: 2 }]],
      attempt: 1,
      from: "queued",
      ordered: { name: "idx", id: "a b", payloads: [{ v: 1 }, { v: 2 }], scores: [1, 2] },
    });
    expect(events[1]!.ordered!.fence).toBeUndefined();

    const found = await tq.jobs.find(jid!);
    expect(found).toMatchObject({
      state: "cancelled",
      jid,
      name: "idx",
      queue: "",
      cancelledFrom: "queued",
      ordered: { id: "a b", payloads: [{ v: 1 }, { v: 2 }], scores: [1, 2] },
    });
    expect(found!.finishedAt).toBeGreaterThan(0);
    expect((await tq.jobs.list("cancelled")).jobs.map((j) => j.jid)).toEqual([jid, plainJid]);
    expect((await tq.jobs.list("cancelled", { name: "idx" })).jobs.map((j) => j.jid)).toEqual([jid]);
    expect((await tq.jobs.list("cancelled", { queue: "default" })).jobs.map((j) => j.jid)).toEqual([plainJid]);
    expect(await tq.jobs.result(jid!)).toMatchObject({ state: "cancelled", error: { class: "TickqCancelled" } });
    expect((await tq.jobs.delete(jid!)).jid).toBe(jid);
    expect(await tq.jobs.find(jid!)).toBeNull();
    expect((await tq.stats()).cancelled).toBe(2);
  });

  it("a running id: the caller fires the event of what waited behind it, its tick the run's; both found by jid", async () => {
    const events: CancelledEvent[] = [];
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let fence = 0;
    let fails = true;
    const perform = (_id: string, _payloads: unknown[], ctx: OrderedContext) => {
      if (fails) {
        fails = false;
        throw new Error("first run fails");
      }
      fence = ctx.fence;
      started();
      return new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)));
    };
    const tq = h.make(
      {},
      {
        on: { cancelled: (e) => void events.push(e) },
        ordered: { idx: { perform, backoff: () => 0 } },
      },
    );
    await tq.enqueueOrdered("idx", { id: "a", payload: "first", score: 1 });
    expect(await tq.tick()).toMatchObject({ retried: 1 });
    await sleep(5);
    const ticking = tq.tick({ budgetMs: 8_000, cancelCheckMs: 100 });
    await running;
    await tq.enqueueOrdered("idx", { id: "a", payload: "behind", score: 5 });
    const answer = await tq.jobs.cancelOrdered("idx", "a");
    expect(answer).toMatchObject({ from: "running", payloads: 1 });
    expect(answer.jids).toHaveLength(2);
    expect(answer.jids[1]).toBe(`o-${fence}-idx`);
    const report = await ticking;
    expect(report).toMatchObject({ cancelled: 1, failed: 0 });
    expect(events.map((e) => [e.jid, e.from])).toEqual([
      [answer.jids[0], "queued"],
      [answer.jids[1], "running"],
    ]);
    expect(events[0]).toMatchObject({ args: ["a", ["behind"]], attempt: 1, ordered: { id: "a", scores: [5] } });
    expect(events[1]).toMatchObject({
      name: "idx",
      queue: "",
      args: ["a", ["first"]],
      attempt: 2, // its second run: one failure before
      ordered: { name: "idx", id: "a", fence, payloads: ["first"], scores: [1] },
    });
    const behind = await tq.jobs.find(answer.jids[0]!);
    expect(behind).toMatchObject({ cancelledFrom: "queued", ordered: { id: "a", payloads: ["behind"] } });
    expect(behind!.ordered!.fence).toBeUndefined();
    expect(await tq.jobs.find(answer.jids[1]!)).toMatchObject({
      state: "cancelled",
      cancelledFrom: "running",
      ordered: { id: "a", fence, payloads: ["first"], scores: [1] },
    });
    const listed = (await tq.jobs.list("cancelled", { name: "idx", order: "oldest" })).jobs;
    expect(listed.map((j) => j.jid)).toEqual(answer.jids);
  });

  it("a run whose handler returned after the mark: its tick settles it cancelled, fires the event and counts it", async () => {
    const events: CancelledEvent[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const tq = h.make(
      {},
      {
        on: { cancelled: (e) => void events.push(e) },
        ordered: {
          idx: {
            perform: async () => {
              started();
              await held;
            },
          },
        },
      },
    );
    await tq.enqueueOrdered("idx", { id: "a", payload: 1 });
    // Its extend comes only every cancelCheckMs: the handler returns before the tick hears of the mark.
    const ticking = tq.tick({ budgetMs: 8_000, cancelCheckMs: 5_000 });
    await running;
    const cancelling = tq.jobs.cancelOrdered("idx", "a");
    while (!(await h.redis.keys(`${h.prefix}cancel:*`)).length) await sleep(5);
    release();
    const answer = await cancelling;
    const report = await ticking;
    expect(answer.state).toBe("cancelled"); // the tick's ack settled it before it heard
    expect(report).toMatchObject({ cancelled: 1, succeeded: 0 });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ jid: answer.jids.at(-1), from: "running", ordered: { id: "a" } });
    expect((await tq.stats()).processed).toBe(0);
  });

  it("over partitions: the record is found and listed from any partition, and its event fires once", async () => {
    const events: CancelledEvent[] = [];
    const tq = h.make(
      {},
      { partitions: 3, on: { cancelled: (e) => void events.push(e) }, ordered: { idx: { perform: () => {} } } },
    );
    for (const id of ["a", "b", "c", "d"]) await tq.enqueueOrdered("idx", { id, payload: id });
    const jids = [];
    for (const id of ["a", "b", "c", "d"]) jids.push(...(await tq.jobs.cancelOrdered("idx", id)).jids);
    expect(events.map((e) => e.jid)).toEqual(jids);
    for (const [k, jid] of jids.entries())
      expect(await tq.jobs.find(jid)).toMatchObject({ state: "cancelled", ordered: { id: "abcd"[k] } });
    expect((await tq.jobs.list("cancelled", { name: "idx", order: "oldest" })).jobs.map((j) => j.jid).sort()).toEqual(
      [...jids].sort(),
    );
  });

  it("ordered records share the plain ones' bounds: the newest 10,000, none older than 7 days", async () => {
    const tq = h.make({}, { ordered: { idx: { perform: () => {} } } });
    const key = `${h.prefix}cancelled`;
    const nowSec = Date.now() / 1000;
    const text = (jid: string) => JSON.stringify({ class: "work", args: [], jid, queue: "default", retry: true });
    // 10,000 plain records an hour old, and one 8 days old.
    const batch: (string | number)[] = [nowSec - 8 * 86_400, text("stale")];
    for (let k = 0; k < 10_000; k++) batch.push(nowSec - 3_600 + k / 1_000, text(`p${k}`));
    for (let at = 0; at < batch.length; at += 2_000) await h.redis.zadd(key, ...batch.slice(at, at + 2_000));
    await tq.enqueueOrdered("idx", { id: "a", payload: 1 });
    const { jids } = await tq.jobs.cancelOrdered("idx", "a");
    expect(await h.redis.zcard(key)).toBe(10_000);
    expect(await h.redis.zscore(key, text("stale"))).toBeNull();
    expect(await h.redis.zscore(key, text("p0"))).toBeNull(); // the oldest within the age went for the newest
    expect((await tq.jobs.list("cancelled", { limit: 1 })).jobs[0]!.jid).toBe(jids[0]);
  });
});
