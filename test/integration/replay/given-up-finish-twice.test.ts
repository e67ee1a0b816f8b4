// finish.lua run twice with the same arguments for a tick that gave a step up
// (given_up.lua): it raises the tick's given-up fence past its own number
// (lib/tick/given-up-fence.lua), so a copy of it reaching Redis after the lease
// hash is gone acts on nothing, answered as a lost lease; a tick that gave no
// step up gets no fence, on a held lease or a lost one.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import { enqueuedAndBegun } from "../../helpers/seeded-ticks.js";
import { finishArgs, NO_ACKS, rawAcks, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;

describe.each(adapterCases)("finish.lua after given_up.lua, run twice, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "given-up-finish-twice");
  const { call, callTwice } = scriptCalls(h);
  const fence = () => h.redis.get(`${h.prefix}gaveup:t1`);

  /** Four jobs queued; t1 began (call 1) with job 1, its step 2a ran (fetching job 2), 3b never did; asked (call 4). */
  const gaveUp = async () => {
    await enqueuedAndBegun(call, { count: 4, ticks: ["t1"], leaseMs: LEASE, batch: 1 });
    await call(protocol.step, tickKeys("t1"), stepArgs({ tick: "t1", leaseMs: LEASE, call: "2a", batch: 1 }));
    await call(protocol.given_up, tickKeys("t1"), { tickId: "t1", call: "4", steps: ["2a", "3b"] });
  };
  const job1 = async () => (await h.redis.lrange(`${h.prefix}inproc:t1:default`, -1, -1))[0]!;

  it("on the held lease: a replay answers the kept reply; past the lease, each copy acts on nothing, answered lease gone", async () => {
    await gaveUp();
    const finish = finishArgs({ tick: "t1", leaseMs: LEASE, call: 5, acks: rawAcks({ default: [await job1()] }) });
    const { first } = await callTwice(protocol.finish, tickKeys("t1"), finish);
    expect(first.leaseGone).toBeUndefined();
    expect(await fence()).toBe("6");
    await h.redis.del(`${h.prefix}tick:t1`);
    const before = await snapshot(h.redis, h.prefix);
    for (let run = 0; run < 2; run++) {
      const late = await call(protocol.finish, tickKeys("t1"), finish);
      expect(late).toMatchObject({ left: 0, leaseGone: 1 });
      expect(await snapshot(h.redis, h.prefix)).toEqual(before);
    }
  });

  it("first reaching Redis past the lease: it acts once and raises the fence; run again, it changes nothing", async () => {
    await gaveUp();
    const finish = finishArgs({ tick: "t1", leaseMs: LEASE, call: 5, acks: rawAcks({ default: [await job1()] }) });
    await h.redis.del(`${h.prefix}tick:t1`);
    // Job 1 acked; job 2 (step 2a's, nobody ran it) stays listed for a resurrector.
    expect(await call(protocol.finish, tickKeys("t1"), finish)).toMatchObject({ left: 1, leaseGone: 1 });
    const after = await snapshot(h.redis, h.prefix);
    expect(after["gaveup:t1"]).toBe("6");
    expect(await call(protocol.finish, tickKeys("t1"), finish)).toMatchObject({ left: 0, leaseGone: 1 });
    expect(await snapshot(h.redis, h.prefix)).toEqual(after);
  });

  it("a tick that gave no step up gets no fence, on the held lease or a lost one", async () => {
    await enqueuedAndBegun(call, { count: 4, ticks: ["t1"], leaseMs: LEASE, batch: 1 });
    const finish = finishArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks: NO_ACKS });
    await callTwice(protocol.finish, tickKeys("t1"), finish);
    expect(await fence()).toBeNull();
    await h.redis.del(`${h.prefix}tick:t1`);
    for (let run = 0; run < 2; run++) await call(protocol.finish, tickKeys("t1"), finish);
    expect(await fence()).toBeNull();
  });
});
