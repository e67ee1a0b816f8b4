// Enqueue reads which ids a tick may hold from `o:NAME:held` (one read per
// name and call) instead of an EXISTS of each id's payloads, and trusts it
// only while every registered tick keeps it (`oticks`,
// lib/ordered/state.lua). A payload for an id that runs must wait behind the
// run, never join it (its ack deletes the run's payloads): over ids held by
// this version's ticks, by a tick of an older version (a rolling deploy,
// which keeps no index), and for ids the index still lists after an older
// tick let them go.
import { describe, expect, it } from "vitest";
import type { OrderedContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const IDS = ["a", "b", "c", "d"];

describe.each(adapterCases)("the held index of ordered ids over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-held-index");

  /** Runs the ids once; while they run, `during` may change Redis, then one bulk call sends each a second payload and three new ids one each. */
  const runWithArrivals = async (during: () => Promise<unknown>) => {
    const runs: { id: string; payloads: unknown[] }[] = [];
    let sent = false;
    const tq = h.make(
      {},
      {
        ordered: {
          idx: {
            perform: async (id: string, payloads: unknown[], _ctx: OrderedContext) => {
              runs.push({ id, payloads });
              if (sent) return;
              sent = true;
              await during();
              await tq.enqueueOrderedBulk([
                ...IDS.map((id) => ({ name: "idx" as const, id, payload: `${id}2` })),
                ...["x", "y", "z"].map((id) => ({ name: "idx" as const, id, payload: `${id}1` })),
              ]);
            },
          },
        },
      },
    );
    await tq.enqueueOrderedBulk(IDS.map((id) => ({ name: "idx", id, payload: `${id}1` })));
    await tq.tick({ concurrency: 1 });
    for (let i = 0; i < 5 && runs.length < 11; i++) await tq.tick();
    const second = Object.fromEntries(runs.slice(IDS.length).map((r) => [r.id, r.payloads]));
    return { first: runs.slice(0, IDS.length), second, tq };
  };

  it("payloads for ids this version's ticks run wait behind the runs", async () => {
    const { first, second, tq } = await runWithArrivals(async () => {
      expect((await h.redis.smembers(`${h.prefix}o:idx:held`)).sort()).toEqual(IDS);
    });
    expect(first.map((r) => r.payloads)).toEqual(IDS.map((id) => [`${id}1`]));
    expect(second).toEqual({ a: ["a2"], b: ["b2"], c: ["c2"], d: ["d2"], x: ["x1"], y: ["y1"], z: ["z1"] });
    expect((await tq.stats()).ordered.idx).toMatchObject({ waiting: 0, running: 0, payloads: 0 });
    expect(await h.redis.exists(`${h.prefix}o:idx:held`)).toBe(0);
  });

  it("payloads for ids a tick of an older version runs (no index, not in oticks) wait behind the runs", async () => {
    const { second } = await runWithArrivals(() => h.redis.del(`${h.prefix}o:idx:held`, `${h.prefix}oticks`));
    expect(second).toEqual({ a: ["a2"], b: ["b2"], c: ["c2"], d: ["d2"], x: ["x1"], y: ["y1"], z: ["z1"] });
  });

  it("ids the index still lists after an older tick let them go take their payloads as new ids", async () => {
    const runs: string[] = [];
    const tq = h.make({}, { ordered: { idx: { perform: (id: string) => void runs.push(id) } } });
    await h.redis.sadd(`${h.prefix}o:idx:held`, "x", "y", "z");
    await tq.enqueueOrderedBulk(["x", "y", "z", "w"].map((id) => ({ name: "idx", id, payload: 1 })));
    await tq.tick();
    expect(runs.sort()).toEqual(["w", "x", "y", "z"]);
    expect(await h.redis.exists(`${h.prefix}o:idx:held`)).toBe(0);
  });
});
