// recurring.lua and begin's recurring pass, each run twice with the same
// arguments: the state is that of one run. The claim is also safe without
// the call numbering: the same claim sent as a new call finds the due slot
// moved on and enqueues nothing.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import { type ArgsOfCall, fetchOf, tickKeys } from "../../helpers/tick-calls.js";
import { redisNowMs } from "./clock.js";

const LEASE = 5_000;
const GRACE = 600_000;
const job = (name: string, slot: number) =>
  JSON.stringify({ class: "x", args: [], jid: `${name}:${slot}`, queue: "default", retry: true });

describe.each(adapterCases)("schedules scripts run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "sched-replay");
  const { call, callTwice } = scriptCalls(h);
  const begin = (tick: string, digest: string) =>
    call(
      protocol.begin,
      beginKeys({ tick, leaseMs: LEASE }),
      beginNamed({ tick, leaseMs: LEASE, digest, dueLimit: 10 }),
    );
  type RecurringArgs = ArgsOfCall<typeof protocol.recurring>;
  /** recurring's ARGV by name: nothing declared, due or orphaned unless `parts` says so; a fetch of 10. */
  const recurringArgs = (seq: number, parts: Partial<RecurringArgs>): RecurringArgs => ({
    tickId: "t1",
    call: String(seq),
    shiftMs: 0,
    pruneGraceMs: GRACE,
    digest: "d1",
    sync: false,
    declared: [],
    due: [],
    orphans: [],
    fetch: fetchOf(10),
    ...parts,
  });

  it("sync, claim and an orphan's marking: a replay changes nothing, nor does the same claim sent again", async () => {
    const now = await redisNowMs(h.redis);
    await h.redis.hset(`${h.prefix}schedules:fp`, "old", "t0 f0");
    await h.redis.zadd(`${h.prefix}schedules:due`, now + 3_600_000, "old");
    await begin("t1", "d1");
    const sync = recurringArgs(2, {
      sync: true,
      declared: [
        { name: "a", timingFp: "ta", specFp: "fa", spec: '{"every":60000}', next: String(now - 1_000) },
        { name: "b", timingFp: "tb", specFp: "fb", spec: '{"every":60000}', next: String(now + 60_000) },
      ],
    });
    const { after } = await callTwice(protocol.recurring, tickKeys("t1"), sync);
    expect(after["schedules:digest"]).toBe("d1");
    expect(Object.keys(after["schedules:orphans"] as object)).toEqual(["old"]);

    const claim = (seq: number) =>
      recurringArgs(seq, {
        due: [
          {
            name: "a",
            specFp: "fa",
            slot: now - 1_000,
            next: String(now + 59_000),
            slots: [
              { slot: now - 61_000, queue: "default", job: job("a", now - 61_000) },
              { slot: now - 1_000, queue: "default", job: job("a", now - 1_000) },
            ],
          },
        ],
        orphans: [{ name: "old", slot: now + 3_600_000 }],
      });
    const { first } = await callTwice(protocol.recurring, tickKeys("t1"), claim(3));
    expect(first).toMatchObject({ leaseHeld: true, enqueued: 2, claimed: ["a"], pruned: 0 });
    const claimed = await snapshot(h.redis, h.prefix);
    expect(claimed["schedules:last"]).toEqual({ a: String(now - 1_000) });
    expect(claimed["inproc:t1:default"]).toHaveLength(2); // fetched by the same call

    // the same claim as a new call (a second tick, or a rerun without numbering): nothing more
    const again = await call(protocol.recurring, tickKeys("t1"), claim(4));
    expect(again).toMatchObject({ leaseHeld: true, enqueued: 0, claimed: [], pruned: 0 });
    const rest = await snapshot(h.redis, h.prefix);
    const { "tick:t1": _lease, ...restState } = rest;
    const { "tick:t1": _lease2, ...claimedState } = claimed;
    expect(restState).toEqual(claimedState);
  });

  it("a paused schedule's claim moves its due time on and enqueues nothing; run twice, the same", async () => {
    const now = await redisNowMs(h.redis);
    await h.redis.hset(`${h.prefix}schedules:fp`, "a", "ta fa");
    await h.redis.zadd(`${h.prefix}schedules:due`, now - 1_000, "a");
    await h.redis.sadd(`${h.prefix}schedules:paused`, "a");
    await begin("t1", "d1");
    const claim = recurringArgs(2, {
      due: [
        {
          name: "a",
          specFp: "fa",
          slot: now - 1_000,
          next: String(now + 59_000),
          slots: [{ slot: now - 1_000, queue: "default", job: job("a", now - 1_000) }],
        },
      ],
    });
    const { first, after } = await callTwice(protocol.recurring, tickKeys("t1"), claim);
    expect(first).toMatchObject({ leaseHeld: true, enqueued: 0, claimed: ["a"] });
    expect(after["schedules:due"]).toEqual(["a", String(now + 59_000)]);
    expect(after["schedules:last"]).toBeUndefined();
    expect(after["queue:default"]).toBeUndefined();
  });

  it("begin's recurring pass: a replay answers the same due list", async () => {
    const now = await redisNowMs(h.redis);
    await h.redis.zadd(`${h.prefix}schedules:due`, now - 5_000, "a", now + 60_000, "b");
    await h.redis.hset(`${h.prefix}schedules:last`, "a", now - 65_000);
    await h.redis.set(`${h.prefix}schedules:digest`, "d1");
    const options = { tick: "t1", leaseMs: LEASE, digest: "d1", dueLimit: 10 };
    const { first } = await callTwice(protocol.begin, beginKeys(options), beginNamed(options));
    expect(first.due).toEqual({
      inSync: true,
      due: [{ name: "a", slot: now - 5_000, last: String(now - 65_000) }],
      more: false,
    });
  });

  it("recurring_list: reads only", async () => {
    await h.redis.zadd(`${h.prefix}schedules:due`, 1, "a");
    await h.redis.hset(`${h.prefix}schedules:spec`, "a", "{}");
    await callTwice(protocol.recurring_list, { due: "schedules:due" }, {});
  });
});
