// Edges of the given-up fence (lib/tick/given-up-fence.lua) with jobs of the same text (no jid),
// where a second ack of a text takes another copy, one nobody ran:
// - lanes of one connection ('c', 'd'): the fence compares the number alone, lane suffix aside;
// - the step that RAN, replayed once the lease hash lapsed: fenced too, so it does not ack its text a
//   second time (a lost-lease replay would otherwise take the copy it fetched itself);
// - the question answered, its reply lost and its resend meeting a lost lease: the tick hears
//   "nobody can tell" and leaves every given-up step's acks to the resurrector, while the first run's
//   fence stands: the never-ran step acts on nothing, and its job runs twice at worst, never lost.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { jidlessCopiesBegun, jidlessText } from "../../helpers/seeded-ticks.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import { finishArgs, NO_ACKS, rawAcks, stepArgs, tickKeys } from "../../helpers/tick-calls.js";
import { leftOfFinish } from "../../../src/tick/given-up.js";

const LEASE = 5_000;
const COPIES = 5;
const text = jidlessText;

describe.each(adapterCases)("the given-up fence's edges, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "given-up-fence-edges");
  const { call } = scriptCalls(h);
  const queued = () => h.redis.llen(`${h.prefix}queue:default`);
  const listed = () => h.redis.llen(`${h.prefix}inproc:t1:default`);

  /** COPIES copies queued; t1 begun (call 1) with two of them (copies 1 and 2), which it runs. */
  async function begunWithTwo() {
    await jidlessCopiesBegun(h, call, { copies: COPIES, leaseMs: LEASE, batch: 2 });
  }

  /** A step reaching Redis twice acts on nothing: the key space as it was, no lease held. */
  async function actsOnNothing(args: ReturnType<typeof stepArgs>) {
    const before = await snapshot(h.redis, h.prefix);
    for (let run = 0; run < 2; run++) {
      const stepped = await call(protocol.step, tickKeys("t1"), args);
      expect(stepped).toMatchObject({ leaseHeld: false });
      expect(stepped.fetched ?? []).toEqual([]);
      expect(await snapshot(h.redis, h.prefix)).toEqual(before);
    }
  }

  for (const [ran, never] of [
    ["2a", "3b"],
    ["2c", "3d"],
  ] as const) {
    it(`lanes ${ran} ran, ${never} never: after the lease lapsed both are fenced; each copy acked once, the ran step's fetch listed`, async () => {
      await begunWithTwo();
      const ranArgs = stepArgs({ tick: "t1", leaseMs: LEASE, call: ran, batch: 1, acks: rawAcks({ default: [text] }) });
      const neverArgs = stepArgs({
        tick: "t1",
        leaseMs: LEASE,
        call: never,
        batch: 1,
        acks: rawAcks({ default: [text] }),
      });
      // The ran step acked copy 1 and fetched copy 3; its reply was lost.
      await call(protocol.step, tickKeys("t1"), ranArgs);
      const asked = await call(protocol.given_up, tickKeys("t1"), { tickId: "t1", call: "4", steps: [ran, never] });
      expect(asked).toMatchObject({ leaseHeld: true, ran: [1, 0] });
      const leave = leftOfFinish(asked.ran, 2);
      expect(leave).toEqual([true, false]);
      // Finish makes the never-ran step's ack (copy 2).
      await call(
        protocol.finish,
        tickKeys("t1"),
        finishArgs({ tick: "t1", leaseMs: LEASE, call: 5, acks: rawAcks({ default: [text] }) }),
      );
      expect({ queued: await queued(), listed: await listed() }).toEqual({ queued: COPIES - 3, listed: 1 });
      await h.redis.del(`${h.prefix}tick:t1`);
      // Either step reaching Redis now (a late copy, a replay of the one that ran) takes nothing.
      await actsOnNothing(neverArgs);
      await actsOnNothing(ranArgs);
      expect({ queued: await queued(), listed: await listed() }).toEqual({ queued: COPIES - 3, listed: 1 });
    });
  }

  it("the question's reply lost and its resend after the lease lapsed: nobody can tell; the fence stands, the never-ran step's job stays listed, none is lost", async () => {
    await begunWithTwo();
    await call(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: "2a", batch: 1, acks: rawAcks({ default: [text] }) }),
    );
    const asked = { tickId: "t1", call: "4", steps: ["2a", "3b"] };
    await call(protocol.given_up, tickKeys("t1"), asked); // its reply lost
    await h.redis.del(`${h.prefix}tick:t1`);
    const resent = await call(protocol.given_up, tickKeys("t1"), asked);
    expect(resent).toMatchObject({ leaseHeld: false, ran: [] });
    expect(leftOfFinish(undefined, 2)).toEqual([true, true]);
    expect(await h.redis.get(`${h.prefix}gaveup:t1`)).toBe("4");
    // Finish (on the lost lease) makes none of their acks.
    await call(protocol.finish, tickKeys("t1"), finishArgs({ tick: "t1", leaseMs: LEASE, call: 5, acks: NO_ACKS }));
    // Copy 2 (the never-ran step's) and copy 3 (the ran step's fetch) wait for the resurrector.
    expect({ queued: await queued(), listed: await listed() }).toEqual({ queued: COPIES - 3, listed: 2 });
    await actsOnNothing(
      stepArgs({ tick: "t1", leaseMs: LEASE, call: "3b", batch: 1, acks: rawAcks({ default: [text] }) }),
    );
    // A resurrector (t2's begin) puts both back: copy 2 runs twice at worst, none is lost.
    const options = { tick: "t2", leaseMs: LEASE, batch: 0 };
    await call(protocol.begin, beginKeys(options), beginNamed(options));
    expect({ queued: await queued(), listed: await listed() }).toEqual({ queued: COPIES - 1, listed: 0 });
  });
});
