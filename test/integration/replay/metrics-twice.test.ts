// The metrics section of an ack (lib/metrics/record-runs.lua), run twice with
// the same arguments: a replayed ack counts nothing again — the call number
// answers a replay while the lease lives, and without the lease only jobs
// still listed are counted, which a replay no longer finds. The read
// (metrics.lua) writes nothing.
import { describe, expect, it } from "vitest";
import { scripts } from "../../../src/lua/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginArgs as encodeBegin } from "../../helpers/begin-args.js";
import { snapshot } from "../../helpers/snapshot.js";

const job = (n: number) => JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", retry: true });
const FETCH_10 = [10, 1, "default", 0];
const LEASE = 5_000;
const RETENTION_SEC = 3_600;

describe.each(adapterCases)("metrics section run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "metrics-replay");
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
  // a and b succeeded (12 ms and 300 ms), c failed and retries (7 ms); waits 40, 5 and 2,000 ms.
  const acks = (a: string, b: string, c: string, header = "") => [
    1,
    "default",
    2,
    a,
    b,
    `1${header} m1 ${RETENTION_SEC}`,
    "r",
    "default",
    c,
    `${c.slice(0, -1)},"error_class":"E"}`,
    30,
    // the successes as one group: name, queue, entries, summed run time and wait, buckets "K N …"
    "x",
    "default",
    2,
    312,
    45,
    "3 1 7 1",
    "4 1 1 1",
    // the retry: name, run time, wait
    "x",
    7,
    2_000,
  ];
  const minuteOf = (after: Record<string, unknown>) => {
    const key = Object.keys(after).find((k) => /^metrics:\d+$/.test(k));
    return key === undefined ? undefined : (after[key] as Record<string, string>);
  };
  // Buckets from 1: 12 ms → (10, 25] is 3, 300 ms → (250, 500] is 7, 7 ms → (5, 10] is 2.
  const expected = {
    "j|x|r": "3",
    "j|x|f": "1",
    "j|x|ms": "319",
    "j|x|b3": "1",
    "j|x|b7": "1",
    "j|x|b2": "1",
    "q|default|ms": "2045",
    "q|default|b4": "1",
    "q|default|b1": "1",
    "q|default|b9": "1",
  };

  it("step: a replay counts each run once", async () => {
    const [a, b, c] = await fetchThree();
    const { after } = await twice(
      scripts.step,
      ["ticks", "tick:t1"],
      ["t1", LEASE, 100, 3_600, 2, ...acks(a, b, c), ...FETCH_10],
    );
    expect(minuteOf(after)).toEqual(expected);
    expect(after["metrics:total"]).toEqual({ ...expected, "j|x|retried": "1" });
    const minute = Object.keys(after).find((k) => /^metrics:\d+$/.test(k))!;
    const ttl = await h.redis.ttl(`${h.prefix}${minute}`);
    expect(ttl).toBeGreaterThan(RETENTION_SEC - 60);
    expect(ttl).toBeLessThanOrEqual(RETENTION_SEC);
    expect(await h.redis.ttl(`${h.prefix}metrics:total`)).toBe(-1);
  });

  it("finish: a replay counts each run once", async () => {
    const [a, b, c] = await fetchThree();
    const { after } = await twice(
      scripts.finish,
      ["ticks", "tick:t1"],
      ["t1", LEASE, 100, 3_600, 2, ...acks(a, b, c), 1, "default"],
    );
    expect(minuteOf(after)).toEqual(expected);
  });

  it("a lost lease: the ack counts the jobs still listed, and its replay finds none to count again", async () => {
    const [a, b, c] = await fetchThree();
    await h.redis.del(`${h.prefix}tick:t1`);
    const args = ["t1", LEASE, 100, 3_600, 2, ...acks(a, b, c), ...FETCH_10];
    await run(scripts.step, ["ticks", "tick:t1"], args);
    const after = await snapshot(h.redis, h.prefix);
    expect(minuteOf(after)).toEqual(expected);
    // The replay answers that it missed all three (it settled none) and changes nothing.
    expect(await run(scripts.step, ["ticks", "tick:t1"], args)).toEqual([expect.any(Number), 0, 0, [], [], [1, 2, 3]]);
    expect(await snapshot(h.redis, h.prefix)).toEqual(after);
  });

  it("an entry whose job is gone (a resurrector put it back) is not counted, nor its group's summed times", async () => {
    const [a, b, c] = await fetchThree();
    await h.redis.lrem(`${h.prefix}inproc:t1:default`, 1, b);
    await run(scripts.step, ["ticks", "tick:t1"], ["t1", LEASE, 100, 3_600, 2, ...acks(a, b, c), ...FETCH_10]);
    const minute = await h.redis.keys(`${h.prefix}metrics:[0-9]*`);
    expect(await h.redis.hgetall(minute[0]!)).toMatchObject({ "j|x|r": "2", "j|x|ms": "7", "q|default|ms": "2000" });
    expect(await h.redis.hget(minute[0]!, "j|x|b7")).toBeNull();
    expect(await h.redis.hget(minute[0]!, "j|x|b3")).toBeNull();
  });

  it("rides along with a results section in the same ack", async () => {
    const [a, b, c] = await fetchThree();
    const withResults = acks(a, b, c, " 1 0 86400 3600000");
    withResults.push(2, "succeeded", 0, "j2", '"tickq_result":1');
    // The results entry goes between the others and the metrics entries.
    const metricsAt = withResults.indexOf("3 1 7 1") - 5;
    const moved = withResults.splice(withResults.length - 5, 5);
    withResults.splice(metricsAt, 0, ...moved);
    const { after } = await twice(
      scripts.step,
      ["ticks", "tick:t1"],
      ["t1", LEASE, 100, 3_600, 2, ...withResults, ...FETCH_10],
    );
    expect(minuteOf(after)).toEqual(expected);
    expect(after["result:j2"]).toMatch(/"tickq_result":1/);
  });

  it("an entry with no wait (a job pushed without enqueued_at) counts its run and no wait", async () => {
    const [a, b, c] = await fetchThree();
    const args = acks(a, b, c);
    args[args.length - 1] = ""; // c: no wait
    await run(scripts.step, ["ticks", "tick:t1"], ["t1", LEASE, 100, 3_600, 2, ...args, ...FETCH_10]);
    const [minute] = await h.redis.keys(`${h.prefix}metrics:[0-9]*`);
    const fields = await h.redis.hgetall(minute!);
    expect(fields).toMatchObject({ "j|x|r": "3", "j|x|f": "1", "q|default|ms": "45" });
    expect(fields["q|default|b9"]).toBeUndefined();
  });

  it("the read writes nothing", async () => {
    const [a, b, c] = await fetchThree();
    await run(scripts.step, ["ticks", "tick:t1"], ["t1", LEASE, 100, 3_600, 2, ...acks(a, b, c), ...FETCH_10]);
    const minute = Math.floor(Date.now() / 60_000);
    const [first] = await readsTwice(scripts.metrics, ["queues"], [minute - 5, minute + 5, "", "", 1]);
    expect(first[1]).toHaveLength(2);
  });
});
