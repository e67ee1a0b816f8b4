// A whole fetched group acked by its place (lib/tick/ack-jobs.lua by_place) is cut with no job
// read, so it must hold no flow job: a flow job's success frees its slot and sends its key's
// parked follower on. The ack tells flow jobs by their text ('{"t' opening a job of the joined
// value), but a job over REF_MIN bytes (or not valid UTF-8) is named by reference ('#' or '~' and
// a SHA-1), not by its text: a flow job so named between the group's oldest and newest jobs (the
// only two the ack by place checks) must still be settled as a flow job, its slot freed and its
// follower sent on, not cut unread with its slot held for good.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { nameJobsByRef } from "../../../src/tick/passes/ack-refs.js";
import type { Outcome } from "../../../src/tick/passes/ack.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { acksOf, jobsOf, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 60_000;
type A = [string, string];
const jobs = {
  plain: { perform: (_args: A) => {} },
  lim: { perform: (_args: A) => {}, concurrency: { key: ([k]: A) => k, limit: 1 } },
};

describe.each(adapterCases.slice(0, 1))(
  "a flow job named by reference in a group acked by place, over $name",
  (adapterCase) => {
    const h = useHarness(adapterCase, "advplace-flow-ref");
    const { call, callTwice } = scriptCalls(h);
    const key = (k: string) => `${h.prefix}${k}`;

    for (const [label, pad] of [
      ["large (named '#' and its SHA-1)", "x".repeat(3_000)],
      ["small (named by its text)", "x"],
    ] as const) {
      it(`a ${label} flow job between plain ones: its slot is freed and its key's follower sent on`, async () => {
        const tq = h.make(jobs);
        await tq.enqueue("plain", ["a", "x"]);
        await tq.enqueue("lim", ["k", pad]);
        await tq.enqueue("plain", ["b", "x"]);
        const begun = await call(
          protocol.begin,
          tickKeys("t1"),
          beginNamed({ tick: "t1", leaseMs: LEASE, batch: 10, resurrectLimit: 0, scheduleLimit: 1_000 }),
        );
        const fetched = jobsOf(begun.fetched);
        expect(fetched.map((j) => JSON.parse(j.raw).class)).toEqual(["plain", "lim", "plain"]);
        expect(begun.fetched[0]!.place).toBe(0);
        // The follower of key k parks behind the running one.
        await tq.enqueue("lim", ["k", "follower"]);
        expect(await h.redis.keys(key("flow:park:*"))).toHaveLength(1);

        await nameJobsByRef(fetched);
        const outcomes: Outcome[] = fetched.map((job) => ({ kind: "succeeded", job }));
        const acks = acksOf(outcomes);
        expect(acks.succeeded[0]!.place).toBe("0");
        // Run twice with the same arguments (a resend after a lost reply): settled once.
        const { first: reply } = await callTwice(
          protocol.step,
          tickKeys("t1"),
          stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks, batch: 0 }),
        );
        expect(reply.missed).toEqual([]);
        expect(await h.redis.llen(key("inproc:t1:default"))).toBe(0);
        // The slot is free and the follower waits in its queue, no longer parked.
        expect(await h.redis.keys(key("flow:park:*"))).toEqual([]);
        const queued = (await h.redis.lrange(key("queue:default"), 0, -1)).map((j) => JSON.parse(j).args[1]);
        expect(queued).toEqual(["follower"]);
        const locks = await h.redis.hgetall(key("flow:locks"));
        expect(Number(locks.lim ?? 0)).toBe(0); // no slot held: the follower is sent, not running
      });
    }
  },
);
