// Finish's own late copy once the lease hash is gone. Since given_up.lua fences
// the tick's steps, finish makes the acks of a given-up step that never ran even
// when another given-up step ran (src/tick/given-up.ts leftOfFinish), and the one
// that ran fetched a batch the tick never saw, which waits in the tick's list for
// a resurrector. Finish is a numbered call too, sent again on a transient error
// (src/tick/calls.ts), and over HTTP a copy may be held in transit: while the lease
// hash lives its copy is a replay (the kept reply), but once the hash lapsed (finish
// leaves it to its TTL) a copy reaching Redis finds a lost lease and acks by text
// what the list still holds (finish.lua's header: "a replay finds none of its jobs
// listed", which no longer holds: the ran step's batch is listed). With jobs of the
// same text (no jid) it takes the ran step's copy, one nobody ran: a job lost.
// Before the change finish carried no ack of a given-up step once one of them ran,
// so its late copy found nothing of theirs to take (copy 1 ran twice at worst).
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { jidlessCopiesBegun, jidlessText, stepRanThenAsked } from "../../helpers/seeded-ticks.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { finishArgs, NO_ACKS, rawAcks, tickKeys } from "../../helpers/tick-calls.js";
import { leftOfFinish } from "../../../src/tick/given-up.js";

const LEASE = 5_000;
const COPIES = 4;
const text = jidlessText;

describe.each(adapterCases)("finish's late copy after a given-up tick's lease lapsed, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "given-up-finish-late");
  const { call } = scriptCalls(h);
  const queued = () => h.redis.llen(`${h.prefix}queue:default`);
  const listed = () => h.redis.llen(`${h.prefix}inproc:t1:default`);

  it("finish first reaching Redis after the lease lapsed acks copy 1 once; a second copy of it takes nothing more", async () => {
    await jidlessCopiesBegun(h, call, { copies: COPIES, leaseMs: LEASE, batch: 1 });
    const asked = await stepRanThenAsked(call, LEASE);
    expect(leftOfFinish(asked.leaseHeld ? asked.ran : undefined, 2)).toEqual([true, false]);
    // The lease lapses between the question and finish (finish held in transit, or sent late).
    await h.redis.del(`${h.prefix}tick:t1`);
    const finish = finishArgs({ tick: "t1", leaseMs: LEASE, call: 5, acks: rawAcks({ default: [text] }) });
    await call(protocol.finish, tickKeys("t1"), finish);
    // On the lost lease it acked the oldest copy (copy 1, the one the tick ran); copy 2 listed.
    expect({ queued: await queued(), listed: await listed() }).toEqual({ queued: COPIES - 2, listed: 1 });
    await call(protocol.finish, tickKeys("t1"), finish);
    expect({ queued: await queued(), listed: await listed() }).toEqual({ queued: COPIES - 2, listed: 1 });
  });

  it("as before the fence (once one given-up step ran, finish made none of their acks), its late copy takes nothing: copy 1 runs twice at worst, none is lost", async () => {
    await jidlessCopiesBegun(h, call, { copies: COPIES, leaseMs: LEASE, batch: 1 });
    await stepRanThenAsked(call, LEASE);
    const finish = finishArgs({ tick: "t1", leaseMs: LEASE, call: 5, acks: NO_ACKS });
    await call(protocol.finish, tickKeys("t1"), finish);
    await h.redis.del(`${h.prefix}tick:t1`);
    await call(protocol.finish, tickKeys("t1"), finish);
    expect({ queued: await queued(), listed: await listed() }).toEqual({ queued: COPIES - 2, listed: 2 });
  });

  for (const [how, place] of [
    ["by text", ""],
    ["by place and text", "0"],
  ] as const) {
    it(`finish acking ${how}, run again after the lease lapsed, takes no copy the ran step fetched`, async () => {
      // Begin (call 1) fetches copy 1, which the tick runs; its ack rides in step 3b, never delivered.
      await jidlessCopiesBegun(h, call, { copies: COPIES, leaseMs: LEASE, batch: 1 });
      // Step 2a ran at Redis, fetching copy 2; its reply and its resends' are lost.
      const asked = await stepRanThenAsked(call, LEASE);
      const leave = leftOfFinish(asked.leaseHeld ? asked.ran : undefined, 2);
      expect(leave).toEqual([true, false]);
      const acks = leave[1] ? NO_ACKS : { ...NO_ACKS, succeeded: [{ queue: "default", place, jobs: [text] }] };
      const finish = finishArgs({ tick: "t1", leaseMs: LEASE, call: 5, acks });
      await call(protocol.finish, tickKeys("t1"), finish);
      // Copy 1 acked (by finish); copy 2 waits in the tick's list for a resurrector; copies 3 and 4 queued.
      expect({ queued: await queued(), listed: await listed() }).toEqual({ queued: COPIES - 2, listed: 1 });
      // The lease lapses before a resurrector comes by; finish's copy held in transit reaches Redis.
      await h.redis.del(`${h.prefix}tick:t1`);
      await call(protocol.finish, tickKeys("t1"), finish);
      // Copy 2 (nobody ran it) must still be listed, for the resurrector.
      expect({ queued: await queued(), listed: await listed() }).toEqual({ queued: COPIES - 2, listed: 1 });
    });
  }
});
