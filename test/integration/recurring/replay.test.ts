// recurring.lua and begin's recurring pass, each run twice with the same
// arguments: the state is that of one run. The claim is also safe without
// the call numbering: the same claim sent as a new call finds the due slot
// moved on and enqueues nothing.
import { describe, expect, it } from "vitest";
import { scripts } from "../../../src/lua/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import { redisNowMs } from "./clock.js";
import { beginArgs as encodeBegin } from "../../helpers/begin-args.js";

const LEASE = 5_000;
const FETCH_10 = [10, 1, "default", 0];
const GRACE = 600_000;
const job = (name: string, slot: number) =>
  JSON.stringify({ class: "x", args: [], jid: `${name}:${slot}`, queue: "default", retry: true });

describe.each(adapterCases)("schedules scripts run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "sched-replay");
  const { run, twice } = scriptCalls(h);
  const begin = (tick: string, digest: string) =>
    run(scripts.begin, ["ticks", `tick:${tick}`], encodeBegin({ tick, leaseMs: LEASE, digest, dueLimit: 10 }));
  const call = (seq: number, rest: (string | number)[]) => ["t1", seq, 0, GRACE, ...rest, ...FETCH_10];

  it("sync, claim and an orphan's marking: a replay changes nothing, nor does the same claim sent again", async () => {
    const now = await redisNowMs(h.redis);
    await h.redis.hset(`${h.prefix}schedules:fp`, "old", "t0 f0");
    await h.redis.zadd(`${h.prefix}schedules:due`, now + 3_600_000, "old");
    await begin("t1", "d1");
    const sync = [
      "d1",
      1,
      2,
      "a",
      "ta",
      "fa",
      '{"every":60000}',
      now - 1_000,
      "b",
      "tb",
      "fb",
      '{"every":60000}',
      now + 60_000,
      0,
      0,
    ];
    const { after } = await twice(scripts.recurring, ["ticks", "tick:t1"], call(2, sync));
    expect(after["schedules:digest"]).toBe("d1");
    expect(Object.keys(after["schedules:orphans"] as object)).toEqual(["old"]);

    const claim = [
      "d1",
      0,
      0,
      1,
      "a",
      "fa",
      now - 1_000,
      now + 59_000,
      2,
      now - 61_000,
      "default",
      job("a", now - 61_000),
      now - 1_000,
      "default",
      job("a", now - 1_000),
      1,
      "old",
      now + 3_600_000,
    ];
    const { first } = await twice(scripts.recurring, ["ticks", "tick:t1"], call(3, claim));
    expect((first as unknown[]).slice(0, 4)).toEqual([1, 2, ["a"], 0]);
    const claimed = await snapshot(h.redis, h.prefix);
    expect(claimed["schedules:last"]).toEqual({ a: String(now - 1_000) });
    expect(claimed["inproc:t1:default"]).toHaveLength(2); // fetched by the same call

    // the same claim as a new call (a second tick, or a rerun without numbering): nothing more
    const again = await run(scripts.recurring, ["ticks", "tick:t1"], call(4, claim));
    expect((again as unknown[]).slice(0, 4)).toEqual([1, 0, [], 0]);
    const rest = await snapshot(h.redis, h.prefix);
    const { "tick:t1": _lease, ...restState } = rest;
    const { "tick:t1": _lease2, ...claimedState } = claimed;
    expect(restState).toEqual(claimedState);
  });

  it("begin's recurring pass: a replay answers the same due list", async () => {
    const now = await redisNowMs(h.redis);
    await h.redis.zadd(`${h.prefix}schedules:due`, now - 5_000, "a", now + 60_000, "b");
    await h.redis.hset(`${h.prefix}schedules:last`, "a", now - 65_000);
    await h.redis.set(`${h.prefix}schedules:digest`, "d1");
    const args = encodeBegin({ tick: "t1", leaseMs: LEASE, digest: "d1", dueLimit: 10 });
    const { first } = await twice(scripts.begin, ["ticks", "tick:t1"], args);
    expect((first as unknown[])[8]).toEqual([1, ["a", String(now - 5_000), String(now - 65_000)], 0]);
  });

  it("recurring_list: reads only", async () => {
    await h.redis.zadd(`${h.prefix}schedules:due`, 1, "a");
    await h.redis.hset(`${h.prefix}schedules:spec`, "a", "{}");
    await twice(scripts.recurring_list, ["schedules:due"], []);
  });
});
