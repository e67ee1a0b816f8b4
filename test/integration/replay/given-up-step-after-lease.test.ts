// A given-up step that given_up.lua found never ran has its acks made by
// finish (src/tick/given-up.ts). Its request may still be held in transit
// (HTTP): past finish it is stale while the lease hash lives, but a step on a
// lost lease still makes its acks on the jobs the tick's lists hold
// (step.lua), and after finish those lists can still hold jobs: the batch a
// step that ran late fetched and the tick never saw, left for a resurrector.
// With jobs of the same text (a producer that sets no jid), the late step's
// ack, had finish made it already, would take such a copy, one nobody ran. So
// when one of the unanswered steps ran, finish makes none of their acks
// (src/tick/given-up.ts finishMakesTheirAcks, which this test asks as the tick does).
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { finishArgs, NO_ACKS, rawAcks, stepArgs, tickKeys } from "../../helpers/tick-calls.js";
import { finishMakesTheirAcks } from "../../../src/tick/given-up.js";

const LEASE = 5_000;
const COPIES = 4;
// No jid: every copy is the same text, and an ack names a job by its text.
const text = JSON.stringify({ class: "x", args: [0], queue: "default", retry: true });

describe.each(adapterCases)("a never-ran given-up step arriving after the lease lapsed, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "given-up-after-lease");
  const { call } = scriptCalls(h);

  it("takes no copy nobody ran: every copy not run is still queued or in the tick's list", async () => {
    await h.redis.sadd(`${h.prefix}queues`, "default");
    await h.redis.rpush(`${h.prefix}queue:default`, ...Array.from({ length: COPIES }, () => text));
    const options = { tick: "t1", leaseMs: LEASE, batch: 1 };
    // Call 1: begin fetches copy 1, which the tick runs; its ack goes in step 3b.
    await call(protocol.begin, beginKeys(options), beginNamed(options));
    // Step 2a ran at Redis (fetching copy 2) but its reply and its resend's were lost; step 3b is held in transit.
    await call(protocol.step, tickKeys("t1"), stepArgs({ tick: "t1", leaseMs: LEASE, call: "2a", batch: 1 }));
    const asked = await call(protocol.given_up, tickKeys("t1"), { tickId: "t1", call: "4", steps: ["2a", "3b"] });
    expect(asked).toMatchObject({ leaseHeld: true, ran: [1, 0] });
    // Copy 2, fetched by 2a, waits in the tick's list for a resurrector; finish makes step 3b's ack only if the tick keeps it.
    const kept = finishMakesTheirAcks(asked.leaseHeld ? asked.ran : undefined);
    const acks = kept ? rawAcks({ default: [text] }) : NO_ACKS;
    await call(protocol.finish, tickKeys("t1"), finishArgs({ tick: "t1", leaseMs: LEASE, call: 5, acks }));
    expect(await h.redis.llen(`${h.prefix}inproc:t1:default`)).toBeGreaterThanOrEqual(1);
    // The lease lapses before a resurrector comes by (a Worker with no cron may wait long).
    await h.redis.del(`${h.prefix}tick:t1`);
    // Step 3b reaches Redis at last, with the ack finish already made.
    const late = stepArgs({ tick: "t1", leaseMs: LEASE, call: "3b", batch: 1, acks: rawAcks({ default: [text] }) });
    const stepped = await call(protocol.step, tickKeys("t1"), late);
    expect(stepped.leaseHeld).toBe(false);
    // Copy 1 ran and was acked once (by 3b, late); copies 2 to 4 never ran: each is still somewhere.
    const queued = await h.redis.llen(`${h.prefix}queue:default`);
    const listed = await h.redis.llen(`${h.prefix}inproc:t1:default`);
    expect({ queued, listed }).toEqual({ queued: COPIES - 2, listed: 1 });
  });
});
