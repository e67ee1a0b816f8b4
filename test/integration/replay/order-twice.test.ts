// The scripts that route jobs with a priority or a group (src/lua/lib/order/),
// each run twice with the same arguments: a resent call must leave the state
// of one run and answer the same, or a lost reply would queue a job twice,
// lose it from its group's ring, or take two turns.
import { describe, expect, it } from "vitest";
import { scripts } from "../../../src/lua/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginArgs as encodeBegin } from "../../helpers/begin-args.js";

const job = (n: number, fields: { tickq_priority?: number; tickq_group?: string } = {}) =>
  JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", retry: true, ...fields });
const FETCH_10 = [10, 1, "default", 0];
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
  const { run, twice, readsTwice } = scriptCalls(h);
  const enqueue = (token: string, jobs: string[], delayMs = 0) =>
    run(
      scripts.enqueue,
      ["queues", "schedule"],
      [token, 60_000, 60_000, jobs.length, ...jobs.flatMap((j) => ["default", delayMs, 0, "", j])],
    );
  const begin = (tick: string, batch = 10) =>
    run(scripts.begin, ["ticks", `tick:${tick}`], encodeBegin({ tick, leaseMs: LEASE, batch }));

  it("enqueue: a resent call queues no job twice and adds no group twice to the ring", async () => {
    const { after } = await twice(
      scripts.enqueue,
      ["queues", "schedule"],
      ["tok", 60_000, 60_000, MIXED.length, ...MIXED.flatMap((j) => ["default", 0, 0, "", j])],
    );
    expect(after["queue:default"]).toHaveLength(1);
    expect(after["prio:default"]).toHaveLength(2); // one member, one score
    expect(after["group:default a"]).toHaveLength(4);
    expect([...(after["groups:default"] as string[])].sort()).toEqual(["", "a", "b"]);
  });

  it("begin: a replay answers the same batch, taken in turns, and takes no more turns", async () => {
    await enqueue("t", MIXED);
    const { after } = await twice(
      scripts.begin,
      ["ticks", "tick:t1"],
      encodeBegin({ tick: "t1", leaseMs: LEASE, batch: 3 }),
    );
    expect(after["inproc:t1:default"]).toHaveLength(3);
  });

  it("step: a job with a group put back ('q') returns to its group once, and the fetch after it runs once", async () => {
    await enqueue("t", MIXED);
    await begin("t1", 2);
    const fetched = await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);
    const others = [fetched.length, ...fetched.flatMap((j) => ["q", "default", j, "", 0])];
    const { after } = await twice(
      scripts.step,
      ["ticks", "tick:t1"],
      ["t1", LEASE, 100, 3_600, 2, 0, ...others, ...FETCH_10],
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
    const { after } = await twice(scripts.housekeep, ["ticks", "tick:t1"], ["t1", 2, 100, LEASE, 100, 100]);
    expect(after["prio:default"]).toHaveLength(4);
    expect(after["group:default g"]).toHaveLength(2);
    expect(after.retry).toBeUndefined();
  });

  it("move: deleting a grouped job and retrying a prioritized dead job happen once", async () => {
    await enqueue("t", MIXED);
    const [stored] = await h.redis.zrange(`${h.prefix}group:default b`, "0", "-1");
    const dead = job(9, { tickq_priority: 7 });
    await h.redis.zadd(`${h.prefix}dead`, 1, dead);
    const { first, after } = await twice(
      scripts.move,
      ["queues"],
      ["tok", 60_000, 2, "queue:default", stored!, "delete", "", "", "dead", dead, "push", "", ""],
    );
    expect(first).toBe("11");
    expect(after["group:default b"]).toBeUndefined();
    expect([...(after["groups:default"] as string[])].sort()).toEqual(["", "a"]);
    expect(after["prio:default"]).toHaveLength(4);
  });

  it("clear: a group's set cleared twice leaves the ring once", async () => {
    await enqueue("t", MIXED);
    const { first, after } = await twice(scripts.clear, ["group:default a"], ["tok", 60_000]);
    expect(first).toBe("2");
    expect([...(after["groups:default"] as string[])].sort()).toEqual(["", "b"]);
  });

  it("queue_parts and stats: read only, and count every part of a queue", async () => {
    await enqueue("t", MIXED);
    const [parts] = await readsTwice(scripts.queue_parts, ["groups:default"], ["default"]);
    expect(parts).toEqual([1, ["a", "b"]]);
    const [stats] = await readsTwice(scripts.stats, ["queues", "ticks"], []);
    expect((stats[8] as unknown as unknown[]).slice(0, 2)).toEqual(["default", 5]); // name, size (then latency)
  });
});
