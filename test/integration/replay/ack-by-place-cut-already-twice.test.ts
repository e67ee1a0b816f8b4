// A group named by its place with its jobs' text, that the lease hash shows cut already
// (`cut:QUEUE` at or past its end: lib/tick/ack-jobs.lua by_place.gone), is answered missed and
// never matched by text: a given-up step may have cut it by place alone, and finish names it again
// (src/tick/given-up.ts); by text it would take the copies of the same text (jobs without a jid)
// the group fetched after it holds, which then never run. A group still listed is settled by its
// text as before. Each call is run twice with the same arguments: the second changes nothing.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { type AckArgs, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
/** The same text for every job: no jid tells one copy from another. */
const SAME = JSON.stringify({ class: "x", args: [], queue: "default" });
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);

describe.each(adapterCases)("a group named by place and text, cut already, run twice, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "replay");
  const { call, callTwice } = scriptCalls(h);
  const inproc = () => h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);
  const step = (n: number, batch: number, acks: AckArgs) =>
    stepArgs({ tick: "t1", leaseMs: LEASE, call: n, batch, acks });
  const group = (place: string, jobs: string[]): AckArgs => ({
    succeeded: [{ queue: "default", place, jobs }],
    others: { items: [] },
  });
  /** 30 copies of one text; t1 begun with 10 (place 0) and stepped to 10 more (place 10). */
  async function begun(): Promise<void> {
    await h.redis.rpush(`${h.prefix}queue:default`, ...Array.from({ length: 30 }, () => SAME));
    const first = await call(
      protocol.begin,
      beginKeys({ tick: "t1", leaseMs: LEASE }),
      beginNamed({ tick: "t1", leaseMs: LEASE, batch: 10 }),
    );
    expect(first.fetched[0]!.place).toBe(0);
    const ahead = await call(protocol.step, tickKeys("t1"), step(2, 10, group("", [])));
    expect(ahead.fetched[0]!.place).toBe(10);
  }

  it("answers missed a group cut by place alone when named again with its text: the copies fetched after it stay listed", async () => {
    await begun();
    const cut = await call(protocol.step, tickKeys("t1"), step(3, 0, group("0+10", [])));
    expect(cut.missed).toEqual([]);
    expect(await inproc()).toHaveLength(10);
    // A per-job count hash, as in the given-up case: the call cannot cut by place, and needs text.
    await h.redis.hset(`${h.prefix}resurrections`, "a job run elsewhere", "1");
    const again = Array.from({ length: 10 }, () => SAME);
    const { first, after } = await callTwice(protocol.step, tickKeys("t1"), step(4, 0, group("0", again)));
    expect(first.missed).toEqual(range(1, 11));
    expect(after["inproc:t1:default"]).toHaveLength(10);
    expect(after["stat:processed"]).toBe("10");
  });

  it("settles by its text, once, a group named by place and text that is still listed", async () => {
    await begun();
    await h.redis.hset(`${h.prefix}resurrections`, "a job run elsewhere", "1");
    const jobs = Array.from({ length: 10 }, () => SAME);
    const { first, after } = await callTwice(protocol.step, tickKeys("t1"), step(3, 0, group("0", jobs)));
    expect(first.missed).toEqual([]);
    expect(after["inproc:t1:default"]).toHaveLength(10);
    expect(after["stat:processed"]).toBe("10");
  });
});
