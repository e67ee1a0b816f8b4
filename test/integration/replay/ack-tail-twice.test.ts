// The ack's tail fast path (lib/tick/ack-jobs.lua take_tail): successes that
// are exactly the oldest jobs of a tick's list are cut from its tail, and the
// jobs fetched ahead of them stay in their order. Run twice with the same
// arguments, each step settles its jobs once and its replay answers the
// same, whether the acks are the oldest jobs in fetch order, the oldest in
// another order, or not the oldest (an older job still running): the list
// ends as the whole-list pass leaves it. A fetched group past 8 KiB comes
// back in chunks (lib/common/joined.lua), the jobs in fetch order, and so
// does its replay.
import { describe, expect, it } from "vitest";
import { encode, JOIN_SEPARATOR } from "../../../src/protocol/define.js";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { ENQUEUE_KEYS, enqueueArgs, rawAcks, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
/** A job of about `pad` bytes more than its fields. */
const job = (n: number, pad = 0) =>
  JSON.stringify({ class: "x", args: [n, "p".repeat(pad)], jid: `j${n}`, queue: "default", retry: true });

describe.each(adapterCases)("acks from the list's tail, run twice, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "replay");
  const { call, callTwice, run } = scriptCalls(h);
  let token = 0;
  const enqueue = (jobs: string[]) =>
    call(
      protocol.enqueue,
      ENQUEUE_KEYS,
      enqueueArgs(
        `t${token++}`,
        jobs.map((j) => ({ job: j })),
      ),
    );
  const inproc = () => h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);
  /** t1 begun (10 fetched), then a step that fetches 10 more ahead of them and acks none. */
  async function twoBatchesHeld(): Promise<string[]> {
    await enqueue(Array.from({ length: 30 }, (_, n) => job(n)));
    await call(protocol.begin, beginKeys({ tick: "t1", leaseMs: LEASE }), beginNamed({ tick: "t1", leaseMs: LEASE }));
    await call(protocol.step, tickKeys("t1"), stepArgs({ tick: "t1", leaseMs: LEASE, call: 2 }));
    const held = await inproc();
    expect(held).toHaveLength(20);
    return held;
  }
  /** Step 3 acking `acked`, run twice: the list after it must be `held` without them, in order, and 10 fetched in front. */
  async function ackTwice(held: string[], acked: string[]) {
    const { first, after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 3, acks: rawAcks({ default: acked }) }),
    );
    expect(first.missed).toEqual([]);
    expect(after["stat:processed"]).toBe(String(acked.length));
    const left = held.filter((j) => !acked.includes(j));
    expect(after["inproc:t1:default"]).toEqual([...[...first.fetched[0]!.jobs].reverse(), ...left]);
  }

  it("successes that are the oldest jobs, in fetch order, are cut from the tail once; the jobs ahead keep their order", async () => {
    const held = await twoBatchesHeld();
    await ackTwice(held, held.slice(10).reverse());
  });

  it("the oldest jobs acked in another order settle the same jobs", async () => {
    const held = await twoBatchesHeld();
    const oldest = held.slice(10);
    await ackTwice(held, [...oldest.slice(5), ...oldest.slice(0, 5)]);
  });

  it("jobs acked while an older one still runs settle those jobs alone, the older one kept in its place", async () => {
    const held = await twoBatchesHeld();
    // The oldest job (the list's last) still runs: the next ten are acked.
    await ackTwice(held, held.slice(9, 19).reverse());
  });

  it("a job acked twice in one call, or one no longer listed, is settled once and the rest as named", async () => {
    const held = await twoBatchesHeld();
    const oldest = held.slice(10).reverse();
    const { first, after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 3, acks: rawAcks({ default: [...oldest, oldest[0]!, job(99)] }) }),
    );
    expect(first.missed).toEqual([11, 12]);
    expect(after["stat:processed"]).toBe("10");
    expect(after["inproc:t1:default"]).toEqual([...[...first.fetched[0]!.jobs].reverse(), ...held.slice(0, 10)]);
  });

  it("a fetched group past 8 KiB comes back in chunks of at most 8 KiB, the jobs in fetch order, and so does its replay", async () => {
    await enqueue(Array.from({ length: 100 }, (_, n) => job(n, 150)));
    await call(
      protocol.begin,
      beginKeys({ tick: "t1", leaseMs: LEASE }),
      beginNamed({ tick: "t1", leaseMs: LEASE, batch: 1 }),
    );
    const { keys, args } = encode(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, batch: 99 }),
    );
    const raw = (await run(protocol.step.script, keys, args)) as unknown[];
    const jobs = (raw[3] as unknown[])[1] as unknown[];
    expect(jobs).toHaveLength(1);
    const chunks = jobs[0] as string[];
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(Buffer.byteLength(chunk)).toBeLessThanOrEqual(8192);
    const list = await inproc();
    expect(chunks.join(JOIN_SEPARATOR).split(JOIN_SEPARATOR)).toEqual(list.slice(0, 99).reverse());
    expect(await run(protocol.step.script, keys, args)).toEqual(raw);
    expect(await inproc()).toEqual(list);
  });
});
