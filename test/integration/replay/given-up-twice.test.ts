// given_up.lua (src/tick/given-up.ts): before finish, which of the steps a
// tick gave up on ran at Redis. Its number is above theirs, so a step that
// had not run when it answered is stale from then on: it acks and fetches
// nothing however late it arrives. Run twice with the same arguments, it
// answers the same and changes nothing more; on a lost lease it answers that
// nobody can tell, and brings no lease back.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import { enqueuedAndBegun } from "../../helpers/seeded-ticks.js";
import { finishArgs, rawAcks, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;

describe.each(adapterCases)("given_up.lua over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "given-up");
  const { call, callTwice } = scriptCalls(h);

  /** Four jobs queued; t1 began (call 1) with the first. */
  const setup = () => enqueuedAndBegun(call, { count: 4, ticks: ["t1"], leaseMs: LEASE, batch: 1 });

  it("tells a lane step that ran from one that never did; run twice, the same; the one that never ran is stale after it", async () => {
    await setup();
    // Lane a's step 2 ran (it acked job 1 and fetched job 2); lane b's step 3 never reached Redis.
    await call(protocol.step, tickKeys("t1"), stepArgs({ tick: "t1", leaseMs: LEASE, call: "2a", batch: 1 }));
    const asked = { tickId: "t1", call: "4", steps: ["2a", "3b"] };
    const { first, after } = await callTwice(protocol.given_up, tickKeys("t1"), asked);
    expect(first).toMatchObject({ leaseHeld: true, ran: [1, 0] });
    // Its fence, apart from the lease hash (lib/tick/given-up-fence.lua): written once, its number.
    expect(after["gaveup:t1"]).toBe("4");
    expect(await h.redis.ttl(`${h.prefix}gaveup:t1`)).toBeGreaterThan(3_600);
    // Step 3 arrives after all, acking the listed jobs (as enqueue stamped them) and asking for more:
    // it acts on nothing, while the lease hash lives and, fenced, once it is gone; twice, the same.
    const listed = await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);
    expect(listed).toHaveLength(2);
    const late = stepArgs({ tick: "t1", leaseMs: LEASE, call: "3b", batch: 2, acks: rawAcks({ default: listed }) });
    for (const leaseGone of [false, true]) {
      if (leaseGone) await h.redis.del(`${h.prefix}tick:t1`);
      const before = await snapshot(h.redis, h.prefix);
      for (let run = 0; run < 2; run++) {
        const stepped = await call(protocol.step, tickKeys("t1"), late);
        expect(stepped.leaseHeld).toBe(false);
        expect(await snapshot(h.redis, h.prefix)).toEqual(leaseGone ? before : after);
      }
    }
  });

  it("tells a step of no lane (one connection, one call at a time) by the tick's last number", async () => {
    await setup();
    await call(protocol.step, tickKeys("t1"), stepArgs({ tick: "t1", leaseMs: LEASE, call: "2", batch: 1 }));
    const { first } = await callTwice(protocol.given_up, tickKeys("t1"), {
      tickId: "t1",
      call: "4",
      steps: ["2", "3"],
    });
    expect(first).toMatchObject({ leaseHeld: true, ran: [1, 0] });
  });

  it("arriving after finish (held in transit past it) acts on nothing and answers that nobody can tell", async () => {
    await setup();
    // The question (call 4) went unanswered; the tick's finish (call 5) ran, its lease still there.
    await call(protocol.finish, tickKeys("t1"), finishArgs({ tick: "t1", leaseMs: LEASE, call: 5 }));
    const before = await snapshot(h.redis, h.prefix);
    const answer = await call(protocol.given_up, tickKeys("t1"), { tickId: "t1", call: "4", steps: ["2a"] });
    expect(answer).toMatchObject({ leaseHeld: false, ran: [] });
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
  });

  it("a step on a lost lease with no fence (its tick never gave a step up) still makes its acks", async () => {
    await setup();
    // Job 1 as begin listed it (enqueue stamps its times into the text).
    const listed = await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);
    await h.redis.del(`${h.prefix}tick:t1`);
    const acks = rawAcks({ default: listed });
    const stepped = await call(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: "2a", batch: 1, acks }),
    );
    expect(stepped.leaseHeld).toBe(false);
    expect(await h.redis.llen(`${h.prefix}inproc:t1:default`)).toBe(0);
  });

  it("on a lease stamped by the Redis before a restart answers that nobody can tell", async () => {
    await setup();
    // A step that ran on that lease acked without keeping its number (step.lua): its seq says nothing.
    await h.redis.hset(`${h.prefix}tick:t1`, "boot", "0123456789abcdef0123456789abcdef01234567");
    const before = await snapshot(h.redis, h.prefix);
    for (let run = 0; run < 2; run++) {
      // Nothing kept (each run reads the time anew): the same answer each time, nothing written.
      const answer = await call(protocol.given_up, tickKeys("t1"), { tickId: "t1", call: "4", steps: ["2a"] });
      expect(answer).toMatchObject({ leaseHeld: false, ran: [] });
      expect(await snapshot(h.redis, h.prefix)).toEqual(before);
    }
  });

  it("on a lost lease answers that nobody can tell, and brings no lease back", async () => {
    await setup();
    await h.redis.del(`${h.prefix}tick:t1`);
    const before = await snapshot(h.redis, h.prefix);
    for (let run = 0; run < 2; run++) {
      // Its clock aside (nothing kept, so each run reads the time anew), the same answer each time.
      const answer = await call(protocol.given_up, tickKeys("t1"), { tickId: "t1", call: "4", steps: ["2a"] });
      expect(answer).toMatchObject({ leaseHeld: false, ran: [] });
      expect(await snapshot(h.redis, h.prefix)).toEqual(before);
    }
  });
});
