// The scripts that route jobs with a priority or a group (src/lua/lib/order/),
// each run twice with the same arguments: a resent call must leave the state
// of one run and answer the same, or a lost reply would queue a job twice,
// lose it from its group's ring, or take two turns.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { ENQUEUE_KEYS, enqueueArgs, housekeepArgs, rawAcks, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const job = (n: number, fields: { tickq_priority?: number; tickq_group?: string } = {}) =>
  JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", retry: true, ...fields });
const LEASE = 5_000;
const MIXED = [
  job(1),
  job(2, { tickq_priority: 5 }),
  job(3, { tickq_group: "a" }),
  job(4, { tickq_group: "b", tickq_priority: -2 }),
  job(5, { tickq_group: "a" }),
];

describe.each(adapterCases)("order scripts run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "order-replay");
  const { call, callTwice, readsCallTwice } = scriptCalls(h);
  const enqueue = (token: string, jobs: string[], delayMs = 0) =>
    call(
      protocol.enqueue,
      ENQUEUE_KEYS,
      enqueueArgs(
        token,
        jobs.map((j) => ({ job: j, delayMs })),
      ),
    );
  const beginOf = (tick: string, batch: number) => {
    const options = { tick, leaseMs: LEASE, batch };
    return [beginKeys(options), beginNamed(options)] as const;
  };
  const begin = (tick: string, batch = 10) => call(protocol.begin, ...beginOf(tick, batch));

  it("enqueue: a resent call queues no job twice and adds no group twice to the ring", async () => {
    const { after } = await callTwice(
      protocol.enqueue,
      ENQUEUE_KEYS,
      enqueueArgs(
        "tok",
        MIXED.map((j) => ({ job: j })),
      ),
    );
    expect(after["queue:default"]).toHaveLength(1);
    expect(after["prio:default"]).toHaveLength(2); // one member, one score
    expect(after["group:default a"]).toHaveLength(4);
    expect([...(after["groups:default"] as string[])].sort()).toEqual(["", "a", "b"]);
  });

  it("begin: a replay answers the same batch, taken in turns, and takes no more turns", async () => {
    await enqueue("t", MIXED);
    const { after } = await callTwice(protocol.begin, ...beginOf("t1", 3));
    expect(after["inproc:t1:default"]).toHaveLength(3);
  });

  it("step: a job with a group put back ('q') returns to its group once, and the fetch after it runs once", async () => {
    await enqueue("t", MIXED);
    await begin("t1", 2);
    const fetched = await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);
    const acks = rawAcks(
      {},
      fetched.map((j) => ({ code: "q", queue: "default", job: j, updated: "", delay: 0 })),
    );
    const { after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks }),
    );
    expect(after["inproc:t1:default"]).toHaveLength(5);
    expect(after["groups:default"]).toBeUndefined();
  });

  it("housekeep: a dead tick's jobs go back to their sets once, and a due retry keeps its priority once", async () => {
    await begin("t1");
    await h.redis.hset(`${h.prefix}ticks`, "dead-tick", "0 1000 default");
    await h.redis.lpush(
      `${h.prefix}inproc:dead-tick:default`,
      job(7, { tickq_priority: 3 }),
      job(8, { tickq_group: "g" }),
    );
    await h.redis.zadd(`${h.prefix}retry`, 0, job(9, { tickq_priority: 4 }));
    const { after } = await callTwice(protocol.housekeep, tickKeys("t1"), housekeepArgs({ tick: "t1", call: 2 }));
    expect(after["prio:default"]).toHaveLength(4);
    expect(after["group:default g"]).toHaveLength(2);
    expect(after.retry).toBeUndefined();
  });

  it("move: deleting a grouped job and retrying a prioritized dead job happen once", async () => {
    await enqueue("t", MIXED);
    const [stored] = await h.redis.zrange(`${h.prefix}group:default b`, "0", "-1");
    const dead = job(9, { tickq_priority: 7 });
    await h.redis.zadd(`${h.prefix}dead`, 1, dead);
    const { first, after } = await callTwice(
      protocol.move,
      { queues: "queues" },
      {
        token: "tok",
        keepMs: 60_000,
        jobs: [
          { from: "queue:default", job: stored!, action: "delete", push: "", distance: "" },
          { from: "dead", job: dead, action: "push", push: "", distance: "" },
        ],
      },
    );
    expect(first).toBe("11");
    expect(after["group:default b"]).toBeUndefined();
    expect([...(after["groups:default"] as string[])].sort()).toEqual(["", "a"]);
    expect(after["prio:default"]).toHaveLength(4);
  });

  it("clear: a group's set cleared twice leaves the ring once", async () => {
    await enqueue("t", MIXED);
    const { first, after } = await callTwice(
      protocol.clear,
      { set: "group:default a" },
      { token: "tok", keepMs: 60_000 },
    );
    expect(first).toBe(2);
    expect([...(after["groups:default"] as string[])].sort()).toEqual(["", "b"]);
  });

  it("queue_parts and stats: read only, and count every part of a queue", async () => {
    await enqueue("t", MIXED);
    const [parts] = await readsCallTwice(protocol.queue_parts, { ring: "groups:default" }, { queue: "default" });
    expect(parts).toEqual({ prio: true, groups: ["a", "b"] });
    const [stats] = await readsCallTwice(
      protocol.stats,
      { queues: "queues", ticks: "ticks" },
      { flowNames: [], orderedNames: [], workflowNames: [] },
    );
    expect(stats.queues[0]).toMatchObject({ name: "default", size: 5 });
  });
});
