// The ack by place (lib/tick/ack-jobs.lua by_place): successes that are a whole fetched group,
// named by its place in the tick's list (lib/tick/fetch-jobs.lua), are cut from the list's tail
// with no job read, when the lease hash's counts say the list holds exactly the jobs from the
// group on; else the text path settles them as before. Run twice with the same arguments, each
// step settles its jobs once. A whole group acked while a job fetched before it still runs and a
// job fetched after it was already acked by text leaves the list as long as the jobs pushed since
// the group's place: a check of that length alone would take the older job with the group's nine
// oldest (a job acked that has not run); the count of jobs cut by place tells them apart.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { fortyBegunAtPlaceZero } from "../../helpers/seeded-ticks.js";
import { type AckArgs, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
/** Successes of the default queue, named by `place` when given. */
const acked = (jobs: string[], place?: number): AckArgs => ({
  succeeded: jobs.length > 0 ? [{ queue: "default", place: place === undefined ? "" : String(place), jobs }] : [],
  others: { items: [] },
});

describe.each(adapterCases)("acks by place, run twice, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "replay");
  const { call, callTwice } = scriptCalls(h);
  const inproc = () => h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);
  const cutCount = () => h.redis.hget(`${h.prefix}tick:t1`, "cut:default");
  const step = (call: number, batch: number, acks: AckArgs) =>
    stepArgs({ tick: "t1", leaseMs: LEASE, call, batch, acks });
  /** 40 jobs enqueued, as stored, oldest first; t1 begun with the first 10 (place 0). */
  const begun = () => fortyBegunAtPlaceZero(h, call, LEASE);

  it("a whole fetched group named by its place is cut from the tail once; the group fetched ahead keeps its order", async () => {
    const all = await begun();
    const ahead = await call(protocol.step, tickKeys("t1"), step(2, 10, acked([])));
    expect(ahead.fetched[0]!.place).toBe(10);
    // In another order than fetched: the place names them, not their order.
    const { first, after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      step(3, 10, acked(all.slice(0, 10).reverse(), 0)),
    );
    expect(first.missed).toEqual([]);
    expect(first.fetched[0]!.place).toBe(20);
    expect(after["stat:processed"]).toBe("10");
    expect(after["inproc:t1:default"]).toEqual(all.slice(10, 30).reverse());
    // Cut by place: the count moved on.
    expect(await cutCount()).toBe("10");
  });

  it("a group named by a place not the oldest, or as a group it is not, is settled by text", async () => {
    const all = await begun();
    await call(protocol.step, tickKeys("t1"), step(2, 10, acked([])));
    // The second group named by its place while the first is still listed: by text, the first kept.
    const { after } = await callTwice(protocol.step, tickKeys("t1"), step(3, 0, acked(all.slice(10, 20), 10)));
    expect(after["stat:processed"]).toBe("10");
    expect(after["inproc:t1:default"]).toEqual(all.slice(0, 10).reverse());
    expect(await cutCount()).toBe("0");
    // Nine of the first group named by its place: by text, the tenth kept.
    const { after: then } = await callTwice(protocol.step, tickKeys("t1"), step(4, 0, acked(all.slice(1, 10), 0)));
    expect(then["stat:processed"]).toBe("19");
    expect(then["inproc:t1:default"]).toEqual([all[0]]);
    expect(await cutCount()).toBe("0");
  });

  it("settles a group behind an older job still running once and keeps that job, though the list's length matches the jobs pushed since the group", async () => {
    const all = await begun();
    // Step 2 acks 1-9 (job 0 still runs) and fetches 10-19 (the group, place 10); step 3 fetches
    // 20-29; step 4 acks job 20 alone, by text, and fetches nothing.
    await call(protocol.step, tickKeys("t1"), step(2, 10, acked(all.slice(1, 10))));
    await call(protocol.step, tickKeys("t1"), step(3, 10, acked([])));
    await call(protocol.step, tickKeys("t1"), step(4, 0, acked([all[20]!])));
    const before = await inproc();
    // 30 jobs pushed, the group at place 10: 20 listed, as many as pushed since the group.
    expect(before).toHaveLength(30 - 10);
    expect(before.at(-1)).toBe(all[0]);

    for (const place of [undefined, 10]) {
      const { first, after } = await callTwice(
        protocol.step,
        tickKeys("t1"),
        step(5, 0, acked(all.slice(10, 20), place)),
      );
      expect(first.missed).toEqual([]);
      expect(after["stat:processed"]).toBe(String(9 + 1 + 10));
      expect(after["inproc:t1:default"]).toEqual([...all.slice(21, 30).reverse(), all[0]]);
      // Back to the state before step 5 for the other naming.
      await h.redis.del(`${h.prefix}inproc:t1:default`);
      await h.redis.rpush(`${h.prefix}inproc:t1:default`, ...before);
      await h.redis.set(`${h.prefix}stat:processed`, "10");
      await h.redis.hset(`${h.prefix}tick:t1`, "seq", "4");
    }
  });

  it("once the list was empty at a fetch, the counts agree again and the next whole group is cut by place", async () => {
    const all = await begun();
    // Job 3 alone by text: the counts disagree from then on.
    await call(protocol.step, tickKeys("t1"), step(2, 0, acked([all[3]!])));
    await call(protocol.step, tickKeys("t1"), step(3, 0, acked([...all.slice(0, 3), ...all.slice(4, 10)], 0)));
    expect(await inproc()).toEqual([]);
    expect(await cutCount()).toBe("0");
    // The list empty: the fetch counts it again from the group's place.
    const next = await call(protocol.step, tickKeys("t1"), step(4, 10, acked([])));
    expect(next.fetched[0]!.place).toBe(10);
    expect(await cutCount()).toBe("10");
    const { after } = await callTwice(protocol.step, tickKeys("t1"), step(5, 0, acked(all.slice(10, 20), 10)));
    expect(after["stat:processed"]).toBe("20");
    expect(after["inproc:t1:default"]).toBeUndefined();
    expect(await cutCount()).toBe("20");
  });
});
