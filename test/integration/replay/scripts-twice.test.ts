// Every script, run twice with the same arguments: the second run leaves
// the state exactly as the first left it, and answers what the first
// answered (a client that resends a command whose reply was lost must get a
// usable answer and change nothing).
import { describe, expect, it } from "vitest";
import { scripts } from "../../../src/lua/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import { beginArgs as encodeBegin } from "../../helpers/begin-args.js";

const job = (n: number, queue = "default") =>
  JSON.stringify({ class: "x", args: [n, 1.0, []], jid: `j${n}`, queue, retry: true });
const FETCH_10 = [10, 1, "default", 0];
/** begin's last three ARGV: no schedules declared (digest "", due limit 0, clock shift 0). */
const LEASE = 5_000;

describe.each(adapterCases)("each script run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "replay");
  const { run, twice } = scriptCalls(h);

  const enqueue = (token: string, jobs: string[], delayMs = 0) =>
    run(
      scripts.enqueue,
      ["queues", "schedule"],
      [token, 60_000, 60_000, jobs.length, ...jobs.flatMap((j) => ["default", delayMs, 0, "", j])],
    );
  const begin = (tick: string) => run(scripts.begin, ["ticks", `tick:${tick}`], encodeBegin({ tick, leaseMs: LEASE }));

  it("enqueue: a resent call (same token) pushes nothing more", async () => {
    const { after } = await twice(
      scripts.enqueue,
      ["queues", "schedule"],
      ["tok", 60_000, 60_000, 2, "default", 0, 0, "", job(1), "default", 60_000, 0, "", job(2)],
    );
    expect(after["queue:default"]).toHaveLength(1);
    expect(after.schedule).toHaveLength(2); // one member, one score
  });

  it("enqueue: a caller's jid sent in a new call within the id window pushes nothing more", async () => {
    const call = (token: string) =>
      run(scripts.enqueue, ["queues", "schedule"], [token, 60_000, 60_000, 1, "default", 0, 0, "mine", job(1)]);
    expect(await call("a")).toBe("1");
    expect(await call("b")).toBe("0");
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(1);
  });

  it("enqueue: a caller's jid, run twice, is remembered once for every id window", async () => {
    const args = (token: string, idWindowMs: number) => [token, 60_000, idWindowMs, 1, "default", 0, 0, "mine", job(1)];
    const { first, after } = await twice(scripts.enqueue, ["queues", "schedule"], args("a", 60_000));
    expect(first).toBe("1");
    expect(Object.keys(after).filter((k) => k.startsWith("jids"))).toEqual(["jids"]);
    expect(await run(scripts.enqueue, ["queues", "schedule"], args("b", 86_400_000))).toBe("0");
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(1);
  });

  it("begin: a replay answers the same batch and fetches no other", async () => {
    await enqueue(
      "t",
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((n) => job(n)),
    );
    const { after } = await twice(scripts.begin, ["ticks", "tick:t1"], encodeBegin({ tick: "t1", leaseMs: LEASE }));
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
    const acks = [1, "default", fetched.length, ...fetched, 0];
    const { after } = await twice(
      scripts.step,
      ["ticks", "tick:t1"],
      ["t1", LEASE, 100, 3_600, 2, ...acks, ...FETCH_10],
    );
    expect(after["inproc:t1:default"]).toHaveLength(10); // the next batch, intact
    expect(after["stat:processed"]).toBe("10");
    // an older call's replay, after a newer one, does nothing either
    const next = await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);
    await run(
      scripts.step,
      ["ticks", "tick:t1"],
      ["t1", LEASE, 100, 3_600, 3, 1, "default", next.length, ...next, 0, ...FETCH_10],
    );
    const now = await snapshot(h.redis, h.prefix);
    await run(scripts.step, ["ticks", "tick:t1"], ["t1", LEASE, 100, 3_600, 2, ...acks, ...FETCH_10]);
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
    const others = [
      3,
      "r",
      "default",
      a,
      `${a.slice(0, -1)},"retry_count":0}`,
      0,
      "d",
      "default",
      b,
      `${b.slice(0, -1)},"error_class":"E"}`,
      0,
      "q",
      "default",
      c,
      "",
      0,
    ];
    const { after } = await twice(
      scripts.step,
      ["ticks", "tick:t1"],
      ["t1", LEASE, 100, 3_600, 2, 0, ...others, ...FETCH_10],
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
    const { first } = await twice(scripts.housekeep, ["ticks", "tick:t1"], ["t1", 2, 100, LEASE, 100, 100]);
    expect((first as number[]).slice(1, 3)).toEqual([1, 1]);
  });

  it("finish: a replay requeues nothing twice and counts nothing twice", async () => {
    await enqueue(
      "t",
      [1, 2, 3].map((n) => job(n)),
    );
    await begin("t1");
    const [a, b, c] = (await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1)) as [string, string, string];
    const acks = [1, "default", 1, a, 2, "q", "default", c, "", 0, "q", "default", b, "", 0];
    const { after } = await twice(
      scripts.finish,
      ["ticks", "tick:t1"],
      ["t1", LEASE, 100, 3_600, 2, ...acks, 1, "default"],
    );
    expect(after["queue:default"]).toHaveLength(2);
    expect(after["stat:processed"]).toBe("1");
    expect(after.ticks).toBeUndefined();
  });

  it("extend: a replay extends a live lease and never revives a lost one", async () => {
    await begin("t1");
    await twice(scripts.extend, ["tick:t1"], ["t1", LEASE, ""]);
    await h.redis.del(`${h.prefix}tick:t1`);
    expect(await run(scripts.extend, ["tick:t1"], ["t1", LEASE, ""])).toEqual([0, []]);
    expect(await h.redis.exists(`${h.prefix}tick:t1`)).toBe(0);
  });

  it("stats: reads only", async () => {
    await enqueue("t", [job(1)]);
    const before = await snapshot(h.redis, h.prefix);
    const first = (await run(scripts.stats, ["queues", "ticks"], [])) as unknown[];
    const second = (await run(scripts.stats, ["queues", "ticks"], [])) as unknown[];
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
    // the same answer, but for what moves with Redis' clock: nowMs (field 12)
    // and each queue's latency (every third entry of field 9, the queues)
    const clockless = (reply: unknown[]) =>
      reply.toSpliced(11, 1).toSpliced(
        8,
        1,
        (reply[8] as unknown[]).filter((_, i) => i % 3 !== 2),
      );
    expect(clockless(second)).toEqual(clockless(first));
  });
});
