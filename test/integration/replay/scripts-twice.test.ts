// Every script, run twice with the same arguments: the second run leaves
// the state exactly as the first left it, and answers what the first
// answered (a client that resends a command whose reply was lost must get a
// usable answer and change nothing).
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import {
  ENQUEUE_KEYS,
  enqueueArgs,
  finishArgs,
  housekeepArgs,
  rawAcks,
  stepArgs,
  tickKeys,
} from "../../helpers/tick-calls.js";

const job = (n: number, queue = "default") =>
  JSON.stringify({ class: "x", args: [n, 1.0, []], jid: `j${n}`, queue, retry: true });
const LEASE = 5_000;

describe.each(adapterCases)("each script run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "replay");
  const { call, callTwice } = scriptCalls(h);

  const enqueue = (token: string, jobs: string[], delayMs = 0) =>
    call(
      protocol.enqueue,
      ENQUEUE_KEYS,
      enqueueArgs(
        token,
        jobs.map((j) => ({ job: j, delayMs })),
      ),
    );
  const begin = (tick: string) =>
    call(protocol.begin, beginKeys({ tick, leaseMs: LEASE }), beginNamed({ tick, leaseMs: LEASE }));

  it("enqueue: a resent call (same token) pushes nothing more", async () => {
    const { after } = await callTwice(
      protocol.enqueue,
      ENQUEUE_KEYS,
      enqueueArgs("tok", [{ job: job(1) }, { job: job(2), delayMs: 60_000 }]),
    );
    expect(after["queue:default"]).toHaveLength(1);
    expect(after.schedule).toHaveLength(2); // one member, one score
  });

  it("enqueue: a caller's jid sent in a new call within the id window pushes nothing more", async () => {
    const send = (token: string) =>
      call(protocol.enqueue, ENQUEUE_KEYS, enqueueArgs(token, [{ job: job(1), jid: "mine" }]));
    expect(await send("a")).toBe("1");
    expect(await send("b")).toBe("0");
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(1);
  });

  it("enqueue: a caller's jid, run twice, is remembered once for every id window", async () => {
    const args = (token: string, idWindowMs: number) =>
      enqueueArgs(token, [{ job: job(1), jid: "mine" }], { idWindowMs });
    const { first, after } = await callTwice(protocol.enqueue, ENQUEUE_KEYS, args("a", 60_000));
    expect(first).toBe("1");
    expect(Object.keys(after).filter((k) => k.startsWith("jids"))).toEqual(["jids"]);
    expect(await call(protocol.enqueue, ENQUEUE_KEYS, args("b", 86_400_000))).toBe("0");
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(1);
  });

  it("begin: a replay answers the same batch and fetches no other", async () => {
    await enqueue(
      "t",
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((n) => job(n)),
    );
    const { after } = await callTwice(
      protocol.begin,
      beginKeys({ tick: "t1", leaseMs: LEASE }),
      beginNamed({ tick: "t1", leaseMs: LEASE }),
    );
    expect(after["inproc:t1:default"]).toHaveLength(10);
    expect(after["queue:default"]).toHaveLength(2);
  });

  it("step: a replay neither acks the next batch nor fetches twice", async () => {
    await enqueue(
      "t",
      Array.from({ length: 25 }, (_, n) => job(n)),
    );
    await begin("t1");
    const fetched = await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);
    const acks = rawAcks({ default: fetched });
    const { after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks }),
    );
    expect(after["inproc:t1:default"]).toHaveLength(10); // the next batch, intact
    expect(after["stat:processed"]).toBe("10");
    // an older call's replay, after a newer one, does nothing either
    const next = await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);
    await call(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 3, acks: rawAcks({ default: next }) }),
    );
    const now = await snapshot(h.redis, h.prefix);
    await call(protocol.step, tickKeys("t1"), stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks }));
    expect(await snapshot(h.redis, h.prefix)).toEqual(now);
    expect(now["stat:processed"]).toBe("20");
  });

  it("step: retry, dead and requeue entries settle once", async () => {
    await enqueue(
      "t",
      [1, 2, 3].map((n) => job(n)),
    );
    await begin("t1");
    const [a, b, c] = (await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1)) as [string, string, string];
    const acks = rawAcks({}, [
      { code: "r", queue: "default", job: a, updated: `${a.slice(0, -1)},"retry_count":0}`, delay: 0 },
      { code: "d", queue: "default", job: b, updated: `${b.slice(0, -1)},"error_class":"E"}`, delay: 0 },
      { code: "q", queue: "default", job: c, updated: "", delay: 0 },
    ]);
    const { after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks }),
    );
    expect(after.retry).toHaveLength(2);
    expect(after.dead).toHaveLength(2);
    expect(after["queue:default"]).toBeUndefined(); // c went back and was fetched again
    expect(after["inproc:t1:default"]).toEqual([c]);
    expect(after["stat:failed"]).toBe("2");
  });

  it("housekeep: a replay resurrects and schedules nothing more", async () => {
    await enqueue("t", [job(1), job(2)], 1); // due in 1 ms
    await h.redis.hset(`${h.prefix}ticks`, "dead-tick", "0 1000 default");
    await h.redis.lpush(`${h.prefix}inproc:dead-tick:default`, job(7), job(8));
    await new Promise((r) => setTimeout(r, 5)); // the two are due by now: begin moves them, not housekeep
    await begin("t1"); // registers t1 (its own first call)
    await new Promise((r) => setTimeout(r, 5));
    await h.redis.zadd(`${h.prefix}schedule`, 0, job(9));
    await h.redis.hset(`${h.prefix}ticks`, "dead-2", "0 1000 default");
    await h.redis.lpush(`${h.prefix}inproc:dead-2:default`, job(10));
    const { first } = await callTwice(protocol.housekeep, tickKeys("t1"), housekeepArgs({ tick: "t1", call: 2 }));
    expect([first.resurrected, first.scheduled]).toEqual([1, 1]);
  });

  it("finish: a replay requeues nothing twice and counts nothing twice", async () => {
    await enqueue(
      "t",
      [1, 2, 3].map((n) => job(n)),
    );
    await begin("t1");
    const [a, b, c] = (await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1)) as [string, string, string];
    const acks = rawAcks({ default: [a] }, [
      { code: "q", queue: "default", job: c, updated: "", delay: 0 },
      { code: "q", queue: "default", job: b, updated: "", delay: 0 },
    ]);
    const { after } = await callTwice(
      protocol.finish,
      tickKeys("t1"),
      finishArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks }),
    );
    expect(after["queue:default"]).toHaveLength(2);
    expect(after["stat:processed"]).toBe("1");
    expect(after.ticks).toBeUndefined();
  });

  it("finish: with its lease gone, both runs ack what is still listed once and answer leaseGone", async () => {
    await enqueue(
      "t",
      [1, 2].map((n) => job(n)),
    );
    await begin("t1");
    const [a, b] = (await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1)) as [string, string];
    await h.redis.del(`${h.prefix}tick:t1`);
    // Another tick resurrected one of them meanwhile: its ack finds it missing.
    await h.redis.lrem(`${h.prefix}inproc:t1:default`, 1, b);
    const acks = rawAcks({ default: [a, b] }, []);
    const args = finishArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks });
    // No lease keeps its reply: the second run acts on nothing (its entries are gone) and answers alike.
    const { nowMs: _n1, ...first } = await call(protocol.finish, tickKeys("t1"), args);
    const after = await snapshot(h.redis, h.prefix);
    const { nowMs: _n2, ...second } = await call(protocol.finish, tickKeys("t1"), args);
    expect(await snapshot(h.redis, h.prefix)).toEqual(after);
    expect(first.leaseGone).toBe(1);
    expect(first.missed).toEqual([2]);
    expect(second).toMatchObject({ leaseGone: 1, missed: [1, 2] });
    expect(after["stat:processed"]).toBe("1");
    expect(after["tick:t1"]).toBeUndefined(); // never re-created
  });

  it("extend: a replay extends a live lease and never revives a lost one", async () => {
    await begin("t1");
    const extend = { tickId: "t1", leaseMs: LEASE, load: "" };
    await callTwice(protocol.extend, { lease: "tick:t1" }, extend);
    await h.redis.del(`${h.prefix}tick:t1`);
    expect(await call(protocol.extend, { lease: "tick:t1" }, extend)).toEqual({ extended: false, cancels: [] });
    expect(await h.redis.exists(`${h.prefix}tick:t1`)).toBe(0);
  });

  it("stats: reads only", async () => {
    await enqueue("t", [job(1)]);
    const before = await snapshot(h.redis, h.prefix);
    const keys = { queues: "queues", ticks: "ticks" };
    const args = { flowNames: [], orderedNames: [], workflowNames: [] };
    const { nowMs: _first, ...first } = await call(protocol.stats, keys, args);
    const { nowMs: _second, ...second } = await call(protocol.stats, keys, args);
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
    // the same answer, but for what moves with Redis' clock (nowMs, each queue's latency) and its memory in use
    const clockless = ({ queues, usedMemory: _used, ...rest }: typeof first) => ({
      ...rest,
      queues: queues.map(({ latencyMs: _latency, ...queue }) => queue),
    });
    expect(clockless(second)).toEqual(clockless(first));
  });
});
