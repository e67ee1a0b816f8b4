// A step may name a whole fetched group by its place alone ("PLACE+COUNT", no job's text:
// lib/tick/ack-jobs.lua by_place). When the lease hash's counts agree it is cut with one LTRIM;
// when they do not (a job of an older group acked by text out of the list's middle, part of the
// group already acked, another entry of its queue, a per-job count hash), the script cannot tell
// its jobs and leaves them listed, every entry of the group answered in `missed`; the tick then
// sends them by text in a later call. Each call is run twice with the same arguments (a resend
// after a lost reply): the second answers the first's reply and changes nothing; a later call
// naming the same group again finds the counts past it and settles nothing twice.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { fortyBegunAtPlaceZero } from "../../helpers/seeded-ticks.js";
import { type AckArgs, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
/** A group of the default queue named by its place alone. */
const byPlace = (place: number, count: number): AckArgs => ({
  succeeded: [{ queue: "default", place: `${place}+${count}`, jobs: [] }],
  others: { items: [] },
});
/** Successes of the default queue by text, named by `place` too when given. */
const byText = (jobs: string[], place = ""): AckArgs => ({
  succeeded: jobs.length > 0 ? [{ queue: "default", place, jobs }] : [],
  others: { items: [] },
});
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);

describe.each(adapterCases)("acks by place alone, run twice, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "replay");
  const { call, callTwice } = scriptCalls(h);
  const inproc = () => h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);
  const cutCount = () => h.redis.hget(`${h.prefix}tick:t1`, "cut:default");
  const processed = () => h.redis.get(`${h.prefix}stat:processed`);
  const step = (n: number, batch: number, acks: AckArgs) =>
    stepArgs({ tick: "t1", leaseMs: LEASE, call: n, batch, acks });
  /** 40 jobs enqueued, as stored, oldest first; t1 begun with the first 10 (place 0) and stepped to the next 10 (place 10). */
  async function begun(): Promise<string[]> {
    const all = await fortyBegunAtPlaceZero(h, call, LEASE);
    const ahead = await call(protocol.step, tickKeys("t1"), step(2, 10, byText([])));
    expect(ahead.fetched[0]!.place).toBe(10);
    return all;
  }

  it("cuts a group named by its place alone once, no job sent; the group fetched ahead keeps its order", async () => {
    const all = await begun();
    const { first, after } = await callTwice(protocol.step, tickKeys("t1"), step(3, 10, byPlace(0, 10)));
    expect(first.missed).toEqual([]);
    expect(after["stat:processed"]).toBe("10");
    expect(after["inproc:t1:default"]).toEqual(all.slice(10, 30).reverse());
    expect(await cutCount()).toBe("10");
    // Named again in a later call (a tick that took no reply and sent it on): the counts are past it.
    const again = await call(protocol.step, tickKeys("t1"), step(4, 0, byPlace(0, 10)));
    expect(again.missed).toEqual(range(1, 11));
    expect(await processed()).toBe("10");
    expect(await inproc()).toEqual(all.slice(10, 30).reverse());
  });

  it("leaves a partial group listed and answers all its entries missed when the counts disagree; its text then settles it once", async () => {
    const all = await begun();
    // Job 3 acked by text out of the list's middle: the counts disagree from then on.
    await call(protocol.step, tickKeys("t1"), step(3, 0, byText([all[3]!])));
    const listed = await inproc();
    // The second group, whole, named by its place alone: not cut, nothing settled.
    const { first, after } = await callTwice(protocol.step, tickKeys("t1"), step(4, 0, byPlace(10, 10)));
    expect(first.missed).toEqual(range(1, 11));
    expect(after["stat:processed"]).toBe("1");
    expect(after["inproc:t1:default"]).toEqual(listed);
    // The first group's nine left, whole no more: named by place alone as nine, the counts still disagree.
    const partial = await call(protocol.step, tickKeys("t1"), step(5, 0, byPlace(0, 9)));
    expect(partial.missed).toEqual(range(1, 10));
    expect(await inproc()).toEqual(listed);
    // The tick sends the second group again by text: settled once, the first group's nine kept.
    const { first: resent, after: settled } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      step(6, 0, byText(all.slice(10, 20))),
    );
    expect(resent.missed).toEqual([]);
    expect(settled["stat:processed"]).toBe("11");
    expect(settled["inproc:t1:default"]).toEqual([...all.slice(0, 3), ...all.slice(4, 10)].reverse());
    // Sent once more (a tick that resent the text after a lost reply, in a new call): nothing found.
    const twice = await call(protocol.step, tickKeys("t1"), step(7, 0, byText(all.slice(10, 20))));
    expect(twice.missed).toEqual(range(1, 11));
    expect(await processed()).toBe("11");
  });

  it("answers missed a group named by place alone that is not the oldest, meets a per-job count, or shares its queue with another entry", async () => {
    const all = await begun();
    const listed = await inproc();
    // The second group while the first is still listed.
    const notOldest = await call(protocol.step, tickKeys("t1"), step(3, 0, byPlace(10, 10)));
    expect(notOldest.missed).toEqual(range(1, 11));
    // A job somewhere holds a resurrection count: each settled job's count must be dropped, which needs its text.
    await h.redis.hset(`${h.prefix}resurrections`, "another job", "1");
    const counted = await call(protocol.step, tickKeys("t1"), step(4, 0, byPlace(0, 10)));
    expect(counted.missed).toEqual(range(1, 11));
    expect(await processed()).toBe(null);
    expect(await cutCount()).toBe("0");
    expect(await inproc()).toEqual(listed);
    await h.redis.hdel(`${h.prefix}resurrections`, "another job");
    // The count gone, the first group is cut.
    const cut = await call(protocol.step, tickKeys("t1"), step(5, 0, byPlace(0, 10)));
    expect(cut.missed).toEqual([]);
    expect(await processed()).toBe("10");
    // The second group beside another entry of its queue (a job of it put back): by text only.
    const shared: AckArgs = {
      succeeded: [{ queue: "default", place: "10+10", jobs: [] }],
      others: { items: [{ code: "q", queue: "default", job: all[19]!, updated: "", delay: 0 }] },
    };
    const { first: beside, after } = await callTwice(protocol.step, tickKeys("t1"), step(6, 0, shared));
    expect(beside.missed).toEqual(range(1, 11));
    expect(after["inproc:t1:default"]).toEqual(all.slice(10, 19).reverse());
    expect(after["stat:processed"]).toBe("10");
  });

  it("keeps the answer of a lost lease: nothing cut, every entry missed, nothing written", async () => {
    await begun();
    await h.redis.del(`${h.prefix}tick:t1`);
    const listed = await inproc();
    for (const n of [3, 3]) {
      const reply = await call(protocol.step, tickKeys("t1"), step(n, 10, byPlace(0, 10)));
      expect(reply.leaseHeld).toBe(false);
      expect(reply.missed).toEqual(range(1, 11));
      expect(await inproc()).toEqual(listed);
      expect(await processed()).toBe(null);
    }
  });

  it("refuses a group named both by place alone and by its jobs, or by a place alone with no size, before writing anything", async () => {
    const all = await begun();
    const listed = await inproc();
    const both: AckArgs = {
      succeeded: [{ queue: "default", place: "0+10", jobs: all.slice(0, 10) }],
      others: { items: [] },
    };
    await expect(call(protocol.step, tickKeys("t1"), step(3, 10, both))).rejects.toThrow(/place alone carries no job/);
    const sizeless: AckArgs = { succeeded: [{ queue: "default", place: "0+", jobs: [] }], others: { items: [] } };
    await expect(call(protocol.step, tickKeys("t1"), step(3, 10, sizeless))).rejects.toThrow(/PLACE\+COUNT/);
    expect(await inproc()).toEqual(listed);
    expect(await processed()).toBe(null);
  });
});
