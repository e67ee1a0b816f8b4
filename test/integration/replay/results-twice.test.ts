// The results section of an ack (lib/results/keep-results.lua), run twice
// with the same arguments: the second run keeps nothing again and writes no
// result again; the reads (result, locate's succeeded stage) write nothing.
import { describe, expect, it } from "vitest";
import { scripts } from "../../../src/lua/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginArgs as encodeBegin } from "../../helpers/begin-args.js";

const job = (n: number) => JSON.stringify({ class: "x", args: [n, 1.0], jid: `j${n}`, queue: "default", retry: true });
const FETCH_10 = [10, 1, "default", 0];
const LEASE = 5_000;
const TTL = 3_600_000;

describe.each(adapterCases)("results section run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "results-replay");
  const { run, twice, readsTwice } = scriptCalls(h);

  const fetchThree = async () => {
    await run(
      scripts.enqueue,
      ["queues", "schedule"],
      ["t", 60_000, 60_000, 3, ...[1, 2, 3].flatMap((n) => ["default", 0, 0, "", job(n)])],
    );
    await run(scripts.begin, ["ticks", "tick:t1"], encodeBegin({ tick: "t1", leaseMs: LEASE }));
    return (await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1)) as [string, string, string];
  };
  // a and b succeeded (both kept, b awaited as j2), c died awaited as j3: entries 1, 2, 3.
  const acks = (a: string, b: string, c: string) => [
    1,
    "default",
    2,
    a,
    b,
    `1 3 10 86400 ${TTL}`,
    "d",
    "default",
    c,
    `${c.slice(0, -1)},"error_class":"E"}`,
    0,
    1,
    "succeeded",
    1,
    "",
    '"tickq_result":{"w":1},"tickq_duration_ms":3',
    2,
    "succeeded",
    1,
    "j2",
    '"tickq_result":2,"tickq_duration_ms":4',
    3,
    "dead",
    0,
    "j3",
    '"error":{"class":"E","message":"m"}',
  ];

  it("step: a replay keeps and writes each result once", async () => {
    const [a, b, c] = await fetchThree();
    const { after } = await twice(
      scripts.step,
      ["ticks", "tick:t1"],
      ["t1", LEASE, 100, 3_600, 2, ...acks(a, b, c), ...FETCH_10],
    );
    expect(after.succeeded).toHaveLength(4); // two members, two scores
    expect(after["result:j2"]).toMatch(
      /^\{"state":"succeeded","finished_at":\d+,"tickq_result":2,"tickq_duration_ms":4\}$/,
    );
    expect(after["result:j3"]).toMatch(/"state":"dead".*"error":\{"class":"E","message":"m"\}/);
    expect(after["result:j1"]).toBeUndefined();
    expect(await h.redis.pttl(`${h.prefix}result:j2`)).toBeGreaterThan(TTL - 60_000);
  });

  it("finish: a replay keeps and writes each result once", async () => {
    const [a, b, c] = await fetchThree();
    const { after } = await twice(
      scripts.finish,
      ["ticks", "tick:t1"],
      ["t1", LEASE, 100, 3_600, 2, ...acks(a, b, c), 1, "default"],
    );
    expect(after.succeeded).toHaveLength(4);
    expect(after["stat:processed"]).toBe("3");
  });

  it("an ack that finds its job gone (a resurrector put it back) keeps no result for it", async () => {
    const [a, b, c] = await fetchThree();
    await h.redis.lrem(`${h.prefix}inproc:t1:default`, 1, b);
    await run(scripts.step, ["ticks", "tick:t1"], ["t1", LEASE, 100, 3_600, 2, ...acks(a, b, c), ...FETCH_10]);
    expect(await h.redis.zcard(`${h.prefix}succeeded`)).toBe(1);
    expect(await h.redis.exists(`${h.prefix}result:j2`)).toBe(0);
  });

  it("extend: a replay writes a job's progress as it was, and a lost lease writes none", async () => {
    await fetchThree();
    const { after } = await twice(scripts.extend, ["tick:t1"], ["t1", LEASE, "", 2, "j1", "0.5", "j2", '{"done":3}']);
    expect(after["progress:j1"]).toBe("0.5");
    expect(after["progress:j2"]).toBe('{"done":3}');
    await h.redis.del(`${h.prefix}tick:t1`);
    expect(await run(scripts.extend, ["tick:t1"], ["t1", LEASE, "", 1, "j3", "1"])).toEqual([0, []]);
    expect(await h.redis.exists(`${h.prefix}progress:j3`)).toBe(0);
  });

  it("step: progress entries (numbered 0) are written, and again as they were by a replay", async () => {
    const [a] = await fetchThree();
    const acks = [1, "default", 1, a, `0 1 0 86400 ${TTL}`, 0, "progress", 0, "j9", "0.25"];
    const { after } = await twice(
      scripts.step,
      ["ticks", "tick:t1"],
      ["t1", LEASE, 100, 3_600, 2, ...acks, ...FETCH_10],
    );
    expect(after["progress:j9"]).toBe("0.25");
    expect(after.succeeded).toBeUndefined();
  });

  it("keeps more jobs than one ZADD takes, in one call", async () => {
    const n = 1_500;
    for (let from = 0; from < n; from += 500) {
      const jobs = Array.from({ length: 500 }, (_, k) => job(from + k));
      await run(
        scripts.enqueue,
        ["queues", "schedule"],
        [`t${from}`, 60_000, 60_000, jobs.length, ...jobs.flatMap((j) => ["default", 0, 0, "", j])],
      );
    }
    await run(scripts.begin, ["ticks", "tick:t1"], encodeBegin({ tick: "t1", leaseMs: LEASE, batch: n }));
    const fetched = await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);
    expect(fetched).toHaveLength(n);
    const entries = fetched.flatMap((_, k) => [k + 1, "succeeded", 1, "", `"tickq_duration_ms":${k}`]);
    await twice(
      scripts.finish,
      ["ticks", "tick:t1"],
      ["t1", LEASE, 100, 3_600, 2, 1, "default", n, ...fetched, `0 ${n} 10000 86400 ${TTL}`, ...entries, 1, "default"],
    );
    expect(await h.redis.zcard(`${h.prefix}succeeded`)).toBe(n);
  });

  it("result and locate's succeeded stage read only", async () => {
    const [a, b, c] = await fetchThree();
    await run(scripts.finish, ["ticks", "tick:t1"], ["t1", LEASE, 100, 3_600, 2, ...acks(a, b, c), 1, "default"]);
    await readsTwice(scripts.result, ["result:j2", "progress:j2"], []);
    const [found] = await readsTwice(
      scripts.locate,
      ["queues", "ticks"],
      [(JSON.parse(a) as { jid: string }).jid, 20_000, "", "0"],
    );
    expect(found.slice(0, 2)).toEqual(["found", "succeeded"]);
  });
});
