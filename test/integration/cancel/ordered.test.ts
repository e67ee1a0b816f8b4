// tq.jobs.cancelOrdered(name, id): an ordered id waiting (due, later, backing
// off) is taken out with its payloads and never runs; a run a tick holds
// aborts its ctx.signal with TickqCancelled and ends cancelled (not retried,
// not dead), with the payloads that waited behind it; one fetched and not
// started never starts; a dead tick's marked run is recorded cancelled, not
// put back. The ordered guarantees hold: payloads enqueued after the cancel
// returned run, later, with a larger fence, never overlapping the cancelled
// run; racing the run's own ack, exactly one outcome stands.
import { describe, expect, it } from "vitest";
import { type OrderedContext, TickqCancelled, TickqError } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

interface Record {
  class: string;
  jid: string;
  args: [string, unknown[]];
  tickq_cancelled_from: string;
  tickq_ordered: { fence?: number; scores: number[] };
}
interface Entry {
  name: string;
  id: string;
  fence?: number;
  tickq_cancelled_from: string;
  payloads: unknown[];
  scores: number[];
}

describe.each(adapterCases)("cancel of ordered ids over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cancel-ordered-ids");
  // The ordered records in the `cancelled` history (lib/ordered/cancel-ids.lua), oldest first.
  const entries = async (name: string): Promise<Entry[]> =>
    (await h.redis.zrange(`${h.prefix}cancelled`, "0", "-1"))
      .map((t) => JSON.parse(t) as Record)
      .filter((r) => r.class === name && r.tickq_ordered)
      .map((r) => ({
        name: r.class,
        id: r.args[0],
        ...(r.tickq_ordered.fence === undefined ? {} : { fence: r.tickq_ordered.fence }),
        tickq_cancelled_from: r.tickq_cancelled_from,
        payloads: r.args[1],
        scores: r.tickq_ordered.scores,
      }));
  const code = (e: unknown) => (e instanceof TickqError ? e.code : String(e));

  it("takes a waiting id out with its payloads: it never runs, and a payload enqueued later runs alone", async () => {
    const runs: unknown[][] = [];
    const tq = h.make({}, { ordered: { idx: { perform: (_id: string, p: unknown[]) => void runs.push(p) } } });
    await tq.enqueueOrdered("idx", { id: "a", payload: { v: 1 }, score: 1 });
    await tq.enqueueOrdered("idx", { id: "a", payload: { v: 2 }, score: 2 });
    await tq.enqueueOrdered("idx", { id: "b", payload: { v: 9 } });
    expect(await tq.jobs.cancelOrdered("idx", "a")).toEqual({
      name: "idx",
      id: "a",
      state: "cancelled",
      from: "queued",
      payloads: 2,
      jids: [expect.any(String)],
    });
    expect(await entries("idx")).toMatchObject([
      { name: "idx", id: "a", tickq_cancelled_from: "queued", payloads: [{ v: 1 }, { v: 2 }], scores: [1, 2] },
    ]);
    expect((await tq.stats()).ordered.idx).toEqual({ waiting: 1, running: 0, payloads: 1, dead: 0 });
    expect(code(await tq.jobs.cancelOrdered("idx", "a").catch((e: unknown) => e))).toBe("NOT_FOUND");
    await tq.enqueueOrdered("idx", { id: "a", payload: { v: 3 } });
    await tq.tick();
    expect(runs.sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)))).toEqual([[{ v: 3 }], [{ v: 9 }]]);
    expect((await tq.stats()).cancelled).toBe(1);
  });

  it("says where a waiting id was: scheduled (due later) or retry (backing off)", async () => {
    let fail = true;
    const tq = h.make(
      {},
      {
        ordered: {
          idx: {
            perform: () => {
              if (fail) throw new Error("boom");
            },
            backoff: () => 60,
          },
        },
      },
    );
    await tq.enqueueOrdered("idx", { id: "later", payload: 1, delayMs: 60_000 });
    expect(await tq.jobs.cancelOrdered("idx", "later")).toMatchObject({ state: "cancelled", from: "scheduled" });
    await tq.enqueueOrdered("idx", { id: "flaky", payload: 1 });
    expect(await tq.tick()).toMatchObject({ retried: 1 });
    fail = false;
    expect(await tq.jobs.cancelOrdered("idx", "flaky")).toMatchObject({
      state: "cancelled",
      from: "retry",
      payloads: 1,
    });
    expect(await h.redis.hlen(`${h.prefix}o:idx:retries`)).toBe(0);
    expect((await tq.stats()).ordered.idx).toEqual({ waiting: 0, running: 0, payloads: 0, dead: 0 });
  });

  it("aborts a running id's signal with TickqCancelled; it ends cancelled with what waited behind it, and later payloads run after it", async () => {
    const runs: { payloads: unknown[]; fence: number; reason?: unknown }[] = [];
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let live = 0;
    let overlapped = false;
    const perform = (_id: string, payloads: unknown[], ctx: OrderedContext) => {
      const run: (typeof runs)[number] = { payloads, fence: ctx.fence };
      runs.push(run);
      if (++live > 1) overlapped = true;
      if (runs.length > 1) return void live--;
      started();
      return new Promise((_, reject) =>
        ctx.signal.addEventListener("abort", () => {
          run.reason = ctx.signal.reason;
          live--;
          reject(ctx.signal.reason);
        }),
      );
    };
    const tq = h.make({}, { ordered: { idx: { perform } } });
    await tq.enqueueOrdered("idx", { id: "a", payload: "first" });
    const ticking = tq.tick({ budgetMs: 8_000, cancelCheckMs: 100 });
    await running;
    await tq.enqueueOrdered("idx", { id: "a", payload: "behind" });
    const answer = await tq.jobs.cancelOrdered("idx", "a");
    expect(answer).toMatchObject({ state: expect.stringMatching(/^cancell/), from: "running", payloads: 1 });
    if (answer.state === "cancelling") expect(answer.heard).toBe(true);
    const reason = runs[0]!.reason as TickqCancelled;
    expect(reason).toBeInstanceOf(TickqCancelled);
    expect(reason.ordered).toEqual({ name: "idx", id: "a" });
    await tq.enqueueOrdered("idx", { id: "a", payload: "after" });
    const report = await ticking;
    expect(report).toMatchObject({ cancelled: 1, failed: 0, retried: 0, dead: 0 });
    if (runs.length < 2) await tq.tick();
    expect(runs.map((r) => r.payloads)).toEqual([["first"], ["after"]]);
    expect(runs[1]!.fence).toBeGreaterThan(runs[0]!.fence);
    expect(overlapped).toBe(false);
    const recorded = await entries("idx");
    expect(recorded.map((e) => [e.tickq_cancelled_from, e.payloads])).toEqual(
      expect.arrayContaining([
        ["queued", ["behind"]],
        ["running", ["first"]],
      ]),
    );
    expect(recorded.find((e) => e.tickq_cancelled_from === "running")?.fence).toBe(runs[0]!.fence);
    expect((await tq.stats()).ordered.idx).toEqual({ waiting: 0, running: 0, payloads: 0, dead: 0 });
    expect(await h.redis.zcard(`${h.prefix}o:idx:dead`)).toBe(0);
    expect(await h.redis.exists(`${h.prefix}cancel:${report.tickId}`)).toBe(0);
  });

  it("discards the success of a handler that ignores the signal: the run ends cancelled", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const tq = h.make(
      {},
      {
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
    const ticking = tq.tick({ budgetMs: 8_000, cancelCheckMs: 100 });
    await running;
    expect(await tq.jobs.cancelOrdered("idx", "a")).toMatchObject({ state: "cancelling", heard: true });
    release();
    const report = await ticking;
    expect(report).toMatchObject({ cancelled: 1, succeeded: 0 });
    expect((await tq.stats()).processed).toBe(0);
    expect((await entries("idx")).map((e) => e.tickq_cancelled_from)).toEqual(["running"]);
  });

  it("never starts an id its tick fetched but had not started", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const ran: string[] = [];
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const tq = h.make(
      {},
      {
        ordered: {
          idx: {
            perform: async (id: string) => {
              ran.push(id);
              if (id === "first") {
                started();
                await held;
              }
            },
          },
        },
      },
    );
    await tq.enqueueOrdered("idx", { id: "first", payload: 1, score: 1 });
    await sleep(5);
    await tq.enqueueOrdered("idx", { id: "second", payload: 2 });
    const ticking = tq.tick({ budgetMs: 8_000, concurrency: 1, cancelCheckMs: 100 });
    await running;
    const answer = await tq.jobs.cancelOrdered("idx", "second");
    expect(answer.from).toBe("running"); // fetched with the first, waiting for the slot
    release();
    const report = await ticking;
    expect(ran).toEqual(["first"]);
    expect(report.succeeded).toBe(1);
    // Heard, so acked as cancelled; or handed back unstarted first, which its ack settled as cancelled.
    if (answer.state === "cancelling") expect(report.cancelled).toBe(1);
    expect((await entries("idx")).map((e) => [e.id, e.tickq_cancelled_from])).toEqual([["second", "running"]]);
  });

  it("records a dead tick's marked run cancelled when it is resurrected, instead of putting it back", async () => {
    const ran: string[] = [];
    const tq = h.make({}, { ordered: { idx: { perform: (id: string) => void ran.push(id) } } });
    await tq.enqueueOrdered("idx", { id: "orphan", payload: 1 });
    // A tick that fetched it and died: its oinproc hash holds the id, its lease is gone.
    const due = await h.redis.zscore(`${h.prefix}o:idx:ready`, "orphan");
    await h.redis.zrem(`${h.prefix}o:idx:ready`, "orphan");
    await h.redis.hset(`${h.prefix}ticks`, "deadtick", "0 30000 default");
    await h.redis.hset(`${h.prefix}oinproc:deadtick`, "idx orphan", `deadtick 77 ${due}`);
    await h.redis.incr(`${h.prefix}o:idx:running`);
    await h.redis.decr(`${h.prefix}o:idx:payloads`);
    expect(await tq.jobs.cancelOrdered("idx", "orphan")).toEqual({
      name: "idx",
      id: "orphan",
      state: "cancelling",
      from: "running",
      payloads: 0,
      heard: false,
      jids: ["o-77-idx"],
    });
    const report = await tq.tick();
    expect(ran).toEqual([]);
    expect(report.resurrected).toBe(0);
    expect((await entries("idx")).map((e) => [e.fence, e.tickq_cancelled_from])).toEqual([[77, "running"]]);
    expect((await tq.stats()).ordered.idx).toEqual({ waiting: 0, running: 0, payloads: 0, dead: 0 });
    expect(await h.redis.exists(`${h.prefix}cancel:deadtick`, `${h.prefix}oinproc:deadtick`)).toBe(0);
  });

  it("racing the run's own ack, exactly one outcome stands for each id: cancelled, or ran (NOT_FOUND)", async () => {
    const ran = new Set<string>();
    const tq = h.make(
      {},
      {
        ordered: {
          idx: {
            perform: async (id: string) => {
              await sleep(Math.random() * 4);
              ran.add(id);
            },
          },
        },
      },
    );
    const ids = Array.from({ length: 30 }, (_, k) => `id-${k}`);
    await tq.enqueueOrderedBulk(ids.map((id) => ({ name: "idx", id, payload: id })));
    const ticking = tq.tick({ budgetMs: 8_000, concurrency: 5, batch: 5, cancelCheckMs: 50 });
    const answers = await Promise.all(
      ids.map(async (id, k) => {
        await sleep(k * 3);
        return tq.jobs.cancelOrdered("idx", id).then((r) => r.state, code);
      }),
    );
    await ticking;
    const cancelled = new Set((await entries("idx")).map((e) => e.id));
    const stats = await tq.stats();
    ids.forEach((id, k) => {
      if (answers[k] === "NOT_FOUND") expect(cancelled.has(id), id).toBe(false);
      else {
        expect(answers[k], id).toMatch(/^cancell/);
        expect(cancelled.has(id), id).toBe(true);
      }
    });
    // Every id ended one way: its run counted as processed, or cancelled (a cancelled run may have run its handler).
    expect(stats.processed + cancelled.size).toBe(ids.length);
    expect(stats.ordered.idx).toEqual({ waiting: 0, running: 0, payloads: 0, dead: 0 });
    expect(ran.size).toBeGreaterThanOrEqual(stats.processed);
  });

  it("refuses a name or id that cannot be one", async () => {
    const tq = h.make({}, { ordered: { idx: { perform: () => {} } } });
    expect(code(await tq.jobs.cancelOrdered("bad name", "a").catch((e: unknown) => e))).toBe("BAD_ARGS");
    expect(code(await tq.jobs.cancelOrdered("idx", "").catch((e: unknown) => e))).toBe("BAD_ARGS");
    expect(code(await tq.jobs.cancelOrdered("idx", "nothing").catch((e: unknown) => e))).toBe("NOT_FOUND");
  });
});
