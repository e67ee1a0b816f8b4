// Failure: the payloads go back merged with arrivals, with one more failure
// and the backoff; after the last retry the run's payloads go to the dead
// set with the error; a failing id never blocks the others; a poison id
// (its tick keeps dying) ends dead too.
import { describe, expect, it } from "vitest";
import type { OrderedContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("ordered failures over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-failure");
  const due = (id: string) => h.redis.zscore(`${h.prefix}o:idx:ready`, id);

  it("a failed run retries with arrivals merged in, its attempt counted", async () => {
    const seen: [unknown[], number][] = [];
    let tq!: ReturnType<typeof make>;
    const make = () =>
      h.make(
        {},
        {
          ordered: {
            idx: {
              backoff: () => 0,
              perform: async (_id: string, payloads: unknown[], ctx: OrderedContext) => {
                seen.push([payloads, ctx.attempt]);
                if (ctx.attempt === 1) {
                  await tq.enqueueOrdered("idx", { id: "a", payload: "arrived", score: 2 });
                  throw new Error("search engine down");
                }
              },
            },
          },
        },
      );
    tq = make();
    await tq.enqueueOrdered("idx", { id: "a", payload: "v1", score: 1 });
    const first = await tq.tick();
    expect(first).toMatchObject({ failed: 1, retried: 1 });
    expect(await h.redis.hget(`${h.prefix}o:idx:retries`, "a")).toBe("1");
    expect((await tq.stats()).ordered.idx).toEqual({ waiting: 1, running: 0, payloads: 2, dead: 0 });
    await tq.tick();
    expect(seen).toEqual([
      [["v1"], 1],
      [["v1", "arrived"], 2],
    ]);
    expect(await h.redis.exists(`${h.prefix}o:idx:retries`)).toBe(0);
    expect(await tq.stats()).toMatchObject({
      processed: 2,
      failed: 1,
      ordered: { idx: { waiting: 0, running: 0, payloads: 0, dead: 0 } },
    });
  });

  it("dead after the last retry, with the run's payloads kept; arrivals of the last run run as a fresh id", async () => {
    const seen: unknown[][] = [];
    const fences: number[] = [];
    let tq!: ReturnType<typeof make>;
    const make = () =>
      h.make(
        {},
        {
          ordered: {
            idx: {
              retry: 1,
              backoff: () => 0,
              perform: async (_id: string, payloads: unknown[], ctx: OrderedContext) => {
                seen.push(payloads);
                fences.push(ctx.fence);
                if (payloads.includes("fixed")) return;
                if (ctx.attempt === 2) await tq.enqueueOrdered("idx", { id: "a", payload: "fixed", score: 9 });
                throw new TypeError(`bad data, attempt ${ctx.attempt}`);
              },
            },
          },
        },
      );
    tq = make();
    await tq.enqueueOrderedBulk([
      { name: "idx", id: "a", payload: { v: 1 }, score: 1 },
      { name: "idx", id: "a", payload: [], score: 2 },
    ]);
    // written by another client (Ruby): bytes JS would change, which must survive
    await h.redis.zadd(`${h.prefix}o:idx:p:a`, 3, '{"v":9007199254740993,"f":1.0}');
    await h.redis.incr(`${h.prefix}o:idx:payloads`);
    await tq.tick();
    const second = await tq.tick();
    expect(second).toMatchObject({ failed: 1, dead: 1 });
    const [entry] = await h.redis.zrange(`${h.prefix}o:idx:dead`, "0", "-1");
    expect(entry).toContain('"payloads":[{"v":1},[],{"v":9007199254740993,"f":1.0}],"scores":[1,2,3]}');
    expect(JSON.parse(entry!)).toMatchObject({
      name: "idx",
      id: "a",
      error_class: "TypeError",
      error_message: "bad data, attempt 2",
      retry_count: 1,
      fence: fences[1],
    });
    expect((await tq.stats()).ordered.idx).toEqual({ waiting: 1, running: 0, payloads: 1, dead: 1 });
    await tq.tick();
    expect(seen.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(seen[2]).toEqual(["fixed"]);
    expect((await tq.stats()).ordered.idx).toEqual({ waiting: 0, running: 0, payloads: 0, dead: 1 });
  });

  it("retry: false sends the first failure's payloads to the dead set", async () => {
    const tq = h.make(
      {},
      {
        ordered: {
          idx: {
            retry: false,
            perform: () => {
              throw new Error("no");
            },
          },
        },
      },
    );
    await tq.enqueueOrdered("idx", { id: "a", payload: 1 });
    expect(await tq.tick()).toMatchObject({ failed: 1, dead: 1, retried: 0 });
    expect((await tq.stats()).ordered.idx?.dead).toBe(1);
  });

  it("a failing id never blocks the others", async () => {
    const ran: string[] = [];
    const tq = h.make(
      {},
      {
        ordered: {
          idx: {
            perform: (id: string) => {
              ran.push(id);
              if (id === "bad") throw new Error("always");
            },
          },
        },
      },
    );
    await tq.enqueueOrdered("idx", { id: "bad", payload: 1 });
    await tq.enqueueOrderedBulk(Array.from({ length: 5 }, (_, i) => ({ name: "idx", id: `ok-${i}`, payload: i })));
    expect(await tq.tick({ concurrency: 1 })).toMatchObject({ succeeded: 5, failed: 1 });
    await tq.enqueueOrdered("idx", { id: "ok-9", payload: 1 });
    expect(await tq.tick()).toMatchObject({ succeeded: 1, failed: 0 });
    expect(ran.filter((id) => id === "bad")).toHaveLength(1);
  });

  it("a new payload does not cut a retry's backoff short", async () => {
    const tq = h.make(
      {},
      {
        ordered: {
          idx: {
            backoff: () => 600,
            perform: () => {
              throw new Error("down");
            },
          },
        },
      },
    );
    await tq.enqueueOrdered("idx", { id: "a", payload: 1 });
    await tq.tick();
    const backoff = Number(await due("a"));
    await tq.enqueueOrdered("idx", { id: "a", payload: 2 });
    expect(Number(await due("a"))).toBe(backoff);
    expect(await tq.tick()).toMatchObject({ fetched: 0 });
    expect((await tq.stats()).ordered.idx).toMatchObject({ waiting: 1, payloads: 2 });
  });

  it("a poison id whose tick keeps dying ends dead with the reason", async () => {
    const ran: string[] = [];
    const tq = h.make({}, { maxResurrections: 2, ordered: { idx: { perform: (id: string) => void ran.push(id) } } });
    await tq.enqueueOrdered("idx", { id: "p", payload: 1 });
    await h.redis.hset(`${h.prefix}o:idx:resurrections`, "p", "2");
    expect(await tq.tick()).toMatchObject({ fetched: 1, dead: 1, failed: 0 });
    expect(ran).toEqual([]);
    const [entry] = await h.redis.zrange(`${h.prefix}o:idx:dead`, "0", "-1");
    expect(JSON.parse(entry!)).toMatchObject({ id: "p", error_class: "TickqPoisonJob", payloads: [1] });
    expect(JSON.parse(entry!).error_message).toMatch(/died 2 times/);
    expect(await h.redis.exists(`${h.prefix}o:idx:resurrections`)).toBe(0);
  });
});
