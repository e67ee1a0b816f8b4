// The scripts cancel adds or changes, run twice with the same arguments
// (a client resending a call whose reply was lost): cancel.lua takes a job
// out and records it once, and marks a held job once; a step, extend or
// resurrect that settles a marked job records it cancelled once.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { ENQUEUE_KEYS, enqueueArgs, finishArgs, rawAcks, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const job = (n: number) => JSON.stringify({ class: "x", args: [n, 1.0], jid: `j${n}`, queue: "default", retry: true });
const LEASE = 5_000;

describe.each(adapterCases)("cancel scripts run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cancel-replay");
  const { call, callTwice } = scriptCalls(h);

  const enqueue = (jobs: string[], delayMs = 0) =>
    call(
      protocol.enqueue,
      ENQUEUE_KEYS,
      enqueueArgs(
        "t",
        jobs.map((j) => ({ job: j, delayMs })),
      ),
    );
  const begin = (tick: string) =>
    call(protocol.begin, beginKeys({ tick, leaseMs: LEASE }), beginNamed({ tick, leaseMs: LEASE }));
  const cancelArgs = (token: string, jid: string, from: string, raw: string, tick = "") => ({
    token,
    keepMs: 60_000,
    jid,
    from,
    job: raw,
    distance: "",
    tick,
  });
  const QUEUES = { queues: "queues" };
  // The stored texts (enqueue stamps enqueued_at in).
  const queued = async () => (await h.redis.lrange(`${h.prefix}queue:default`, 0, -1)).reverse();
  const held = async () => (await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1)).reverse();
  const cancel = (token: string, jid: string, from: string, raw: string, tick = "") =>
    call(protocol.cancel, QUEUES, cancelArgs(token, jid, from, raw, tick));

  it("cancel.lua: a queued job is taken out and recorded once; another call with a new token finds it gone", async () => {
    await enqueue([job(1), job(2)]);
    const [one, two] = await queued();
    const { first, after } = await callTwice(protocol.cancel, QUEUES, cancelArgs("c1", "j1", "queue:default", one!));
    expect(first).toBe("cancelled");
    expect(after["queue:default"]).toEqual([two]);
    expect(after.cancelled).toHaveLength(2); // one member, its score
    expect(after["stat:cancelled"]).toBe("1");
    expect(await cancel("c2", "j1", "queue:default", one!)).toBe("gone");
    expect(await h.redis.get(`${h.prefix}stat:cancelled`)).toBe("1");
  });

  it("cancel.lua: a queued grouped job is taken out of its group's set once; its group leaves the ring", async () => {
    const grouped = (n: number, group: string) =>
      JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", tickq_priority: 0, tickq_group: group });
    await enqueue([grouped(1, "a"), grouped(2, "b")]);
    const [one] = await h.redis.zrange(`${h.prefix}group:default b`, "0", "-1");
    const { first, after } = await callTwice(protocol.cancel, QUEUES, cancelArgs("c1", "j2", "queue:default", one!));
    expect(first).toBe("cancelled");
    expect(after["group:default b"]).toBeUndefined();
    expect(after["groups:default"]).not.toContain("b");
    expect(after["group:default a"]).toHaveLength(2); // one member, its score
    expect(after["stat:cancelled"]).toBe("1");
    expect(await cancel("c2", "j2", "queue:default", one!)).toBe("gone");
    expect(await h.redis.get(`${h.prefix}stat:cancelled`)).toBe("1");
  });

  it("cancel.lua: a scheduled job is taken out of `schedule` once", async () => {
    await enqueue([job(1)], 60_000);
    const [one] = await h.redis.zrange(`${h.prefix}schedule`, "0", "-1");
    const { first, after } = await callTwice(protocol.cancel, QUEUES, cancelArgs("c1", "j1", "schedule", one!));
    expect(first).toBe("cancelled");
    expect(after.schedule).toBeUndefined();
    expect(String((after.cancelled as string[])[0])).toContain('"tickq_cancelled_from":"scheduled"');
  });

  it("cancel.lua: a held job is marked once, and the mark is not set twice", async () => {
    await enqueue([job(1)]);
    await begin("t1");
    const [one] = await held();
    const { first, after } = await callTwice(
      protocol.cancel,
      QUEUES,
      cancelArgs("c1", "j1", "inproc:default", one!, "t1"),
    );
    expect(first).toBe("marked");
    expect(after["cancel:t1"]).toEqual({ j1: "0" });
    expect(after["inproc:t1:default"]).toEqual([one]);
    expect(await cancel("c2", "j1", "inproc:default", one!, "t1")).toBe("marked");
  });

  it("cancel.lua: a mark flags the holder's lease (its steps read marks only then), and never brings a lost lease back", async () => {
    await enqueue([job(1), job(2)]);
    await begin("t1");
    const [one, two] = await held();
    expect(await h.redis.hget(`${h.prefix}tick:t1`, "cancels")).toBeNull();
    const { after } = await callTwice(protocol.cancel, QUEUES, cancelArgs("c1", "j1", "inproc:default", one!, "t1"));
    expect((after["tick:t1"] as Record<string, string>).cancels).toBe("1");

    await h.redis.del(`${h.prefix}tick:t1`); // the lease ran out; the tick has not been resurrected yet
    const { first, after: orphaned } = await callTwice(
      protocol.cancel,
      QUEUES,
      cancelArgs("c2", "j2", "inproc:default", two!, "t1"),
    );
    expect(first).toBe("orphaned");
    expect(orphaned["tick:t1"]).toBeUndefined();
    expect(orphaned["cancel:t1"]).toEqual({ j1: "0", j2: "0" });
  });

  it("step: a tick whose lease is gone still reads its marks (no flag to tell it) and settles the marked job cancelled once", async () => {
    await enqueue([job(1)]);
    await begin("t1");
    const [one] = await held();
    await h.redis.del(`${h.prefix}tick:t1`); // lease gone before the cancel: no flag is set
    expect(await cancel("c1", "j1", "inproc:default", one!, "t1")).toBe("orphaned");
    const acks = rawAcks({ default: [one!] });
    const args = stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks });
    // Without a lease there is no kept reply to answer a replay with: the second run finds the job no longer listed.
    const first = await call(protocol.step, tickKeys("t1"), args);
    expect(first.cancelled).toEqual([1]);
    const second = await call(protocol.step, tickKeys("t1"), args);
    expect(second.missed).toEqual([1]);
    expect(await h.redis.get(`${h.prefix}stat:cancelled`)).toBe("1");
    expect(await h.redis.get(`${h.prefix}stat:processed`)).toBeNull();
    expect(await h.redis.exists(`${h.prefix}inproc:t1:default`, `${h.prefix}cancel:t1`)).toBe(0);
  });

  it("extend: the tick learns of the mark; a replayed heard list marks heard once and answers the same", async () => {
    await enqueue([job(1)]);
    await begin("t1");
    const [one] = await held();
    await cancel("c1", "j1", "inproc:default", one!, "t1");
    const extend = { tickId: "t1", leaseMs: LEASE, load: "" };
    const lease = { lease: "tick:t1" };
    expect(await call(protocol.extend, lease, extend)).toEqual({ extended: true, cancels: ["j1"] });
    const heard = { ...extend, progress: [], heard: ["j1"] };
    const { first, after } = await callTwice(protocol.extend, lease, heard);
    expect(first).toEqual({ extended: true, cancels: [] });
    expect(after["cancel:t1"]).toEqual({ j1: "1" });
    expect(await cancel("c2", "j1", "inproc:default", one!, "t1")).toBe("heard");
  });

  it("step: a marked job acked as succeeded is recorded cancelled once, the entry named cancelled", async () => {
    await enqueue([job(1), job(2)]);
    await begin("t1");
    const [one, two] = await held();
    await cancel("c1", "j1", "inproc:default", one!, "t1");
    const acks = rawAcks({ default: [one!, two!] });
    const { first, after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks }),
    );
    expect(first.cancelled).toEqual([1]);
    expect(after["stat:cancelled"]).toBe("1");
    expect(after["stat:processed"]).toBe("1");
    expect(after["cancel:t1"]).toBeUndefined();
    expect(after.cancelled).toHaveLength(2);
  });

  it("finish: a job the tick acks as cancelled ('c') is recorded once", async () => {
    await enqueue([job(1)]);
    await begin("t1");
    const [one] = await held();
    await cancel("c1", "j1", "inproc:default", one!, "t1");
    const acks = rawAcks({}, [{ code: "c", queue: "default", job: one!, updated: "", delay: 0 }]);
    const { first, after } = await callTwice(
      protocol.finish,
      tickKeys("t1"),
      finishArgs({ tick: "t1", leaseMs: LEASE, call: 3, acks }),
    );
    expect(first.cancelled).toEqual([1]);
    expect(after["stat:cancelled"]).toBe("1");
    expect(after["stat:processed"]).toBeUndefined();
    expect(after["cancel:t1"]).toBeUndefined();
  });

  it("begin's resurrect: a marked job of a dead tick is recorded cancelled once, never put back", async () => {
    await enqueue([job(1)]);
    await begin("t1");
    const [one] = await held();
    await cancel("c1", "j1", "inproc:default", one!, "t1");
    await h.redis.del(`${h.prefix}tick:t1`, `${h.prefix}resurrector`); // t1 died: its lease and its resurrector lock ran out
    const { after } = await callTwice(
      protocol.begin,
      beginKeys({ tick: "t2", leaseMs: LEASE }),
      beginNamed({ tick: "t2", leaseMs: LEASE }),
    );
    expect(after["queue:default"]).toBeUndefined();
    expect(after["inproc:t2:default"]).toBeUndefined();
    expect(after["stat:cancelled"]).toBe("1");
    expect(after["cancel:t1"]).toBeUndefined();
  });
});
