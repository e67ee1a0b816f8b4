// A given-up step that given_up.lua found never ran has its acks made by
// finish (src/tick/given-up.ts leftOfFinish), even when another given-up step
// ran. Its request may still be held in transit (HTTP) and reach Redis late:
// while the lease hash lives it is stale there (the question's number is in
// `seq`); once the hash is gone (it lapsed after finish, or a resurrector found
// it gone and took the tick's lists) a step on a lost lease would still ack
// what the tick's lists hold, and after finish those lists can hold the batch
// a step that ran fetched and the tick never saw. With jobs of the same text
// (a producer that sets no jid) its ack, made by finish already, would take
// such a copy, one nobody ran. The question's fence (lib/tick/given-up-fence.lua)
// makes it act on nothing, run once or twice: each copy is acked once.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { jidlessCopiesBegun, jidlessText, stepRanThenAsked } from "../../helpers/seeded-ticks.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import { finishArgs, NO_ACKS, rawAcks, stepArgs, tickKeys } from "../../helpers/tick-calls.js";
import { leftOfFinish } from "../../../src/tick/given-up.js";

const LEASE = 5_000;
const COPIES = 4;
const text = jidlessText;

describe.each(adapterCases)("a never-ran given-up step arriving late, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "given-up-after-lease");
  const { call } = scriptCalls(h);
  const queued = () => h.redis.llen(`${h.prefix}queue:default`);
  const listed = () => h.redis.llen(`${h.prefix}inproc:t1:default`);
  // Step 3b as it left the tick: the ack of copy 1, and a fetch.
  const late = stepArgs({ tick: "t1", leaseMs: LEASE, call: "3b", batch: 2, acks: rawAcks({ default: [text] }) });

  /**
   * Tick t1: begin (call 1) fetches copy 1, which it runs; its ack goes in step 3b, held in transit.
   * Step 2a ran at Redis (fetching copy 2), its reply and its resend's lost. The question (call 4)
   * tells 2a ran and 3b never did; finish (call 5) makes 3b's ack, as the tick does: by text alone, or
   * by begin's group's place (0) and text (lib/tick/ack-jobs.lua by_place).
   */
  async function finishedAfterQuestion(place: string) {
    await jidlessCopiesBegun(h, call, { copies: COPIES, leaseMs: LEASE, batch: 1 });
    const asked = await stepRanThenAsked(call, LEASE);
    expect(asked).toMatchObject({ leaseHeld: true, ran: [1, 0] });
    const leave = leftOfFinish(asked.leaseHeld ? asked.ran : undefined, 2);
    expect(leave).toEqual([true, false]);
    const acks = leave[1] ? NO_ACKS : { ...NO_ACKS, succeeded: [{ queue: "default", place, jobs: [text] }] };
    await call(protocol.finish, tickKeys("t1"), finishArgs({ tick: "t1", leaseMs: LEASE, call: 5, acks }));
    // Copy 1 acked once (by finish); copy 2, fetched by 2a, waits in the tick's list; copies 3 and 4 queued.
    expect({ queued: await queued(), listed: await listed() }).toEqual({ queued: COPIES - 2, listed: 1 });
  }

  /** Step 3b reaches Redis, twice (a resend): each time it acts on nothing and holds no lease. */
  async function arrivesLateActingOnNothing() {
    const before = await snapshot(h.redis, h.prefix);
    for (let run = 0; run < 2; run++) {
      const stepped = await call(protocol.step, tickKeys("t1"), late);
      expect(stepped).toMatchObject({ leaseHeld: false, deadEvicted: 0 });
      expect(stepped.fetched ?? []).toEqual([]);
      expect(await snapshot(h.redis, h.prefix)).toEqual(before);
    }
  }

  for (const [how, place] of [
    ["by text", ""],
    ["by place and text", "0"],
  ] as const) {
    it(`finish acking ${how}; before the lease lapsed: stale, acts on nothing; copy 1 acked once, none of the others taken`, async () => {
      await finishedAfterQuestion(place);
      await arrivesLateActingOnNothing();
      expect({ queued: await queued(), listed: await listed() }).toEqual({ queued: COPIES - 2, listed: 1 });
    });

    it(`finish acking ${how}; after the lease lapsed: fenced, acts on nothing; copy 2 stays for a resurrector, not acked for copy 1`, async () => {
      await finishedAfterQuestion(place);
      // The lease lapses before a resurrector comes by (a Worker with no cron may wait long).
      await h.redis.del(`${h.prefix}tick:t1`);
      await arrivesLateActingOnNothing();
      expect({ queued: await queued(), listed: await listed() }).toEqual({ queued: COPIES - 2, listed: 1 });
    });

    it(`finish acking ${how}; after a resurrector took the tick's lists: fenced, acts on nothing; every copy not run is queued once`, async () => {
      await finishedAfterQuestion(place);
      await h.redis.del(`${h.prefix}tick:t1`);
      // Tick t2's begin resurrects t1's list (copy 2 back in its queue) and fetches nothing (batch 0).
      const options = { tick: "t2", leaseMs: LEASE, batch: 0 };
      await call(protocol.begin, beginKeys(options), beginNamed(options));
      expect({ queued: await queued(), listed: await listed() }).toEqual({ queued: COPIES - 1, listed: 0 });
      await arrivesLateActingOnNothing();
      expect({ queued: await queued(), listed: await listed() }).toEqual({ queued: COPIES - 1, listed: 0 });
    });
  }
});
