// A rolling deploy: a tick of this version fetches a capped run (its rest left in p:ID behind it, noted in
// `capped`), dies, and a tick of the previous version (main's scripts: test/fixtures/main-scripts.ts)
// resurrects it. The older resurrector puts p:ID back whole, every payload once and in order; as it
// knows no rest in place, it counts the rest twice in `payloads` (the waiting count stats show: a known
// limit of such a deploy, docs/guides/ordered.md) and leaves the run's `capped` field, which this
// version's next fetch of the id takes out, so no later run reads it.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { scripts as mainScripts } from "../../fixtures/main-scripts.js";
import { adapterCases } from "../../helpers/adapters.js";
import { type BeginOptions, beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import {
  housekeepArgs,
  idsOf,
  ORDERED_ENQUEUE_KEYS,
  orderedEnqueueArgs,
  stepArgs,
  tickKeys,
} from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const CAPPED = ["idx 1"];

describe.each(adapterCases)("a capped run's rest resurrected by an older tick, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-capped-older-resurrector");
  const { call } = scriptCalls(h);
  const options = (tick: string, batch = 10): BeginOptions => ({ tick, leaseMs: LEASE, ordered: CAPPED, batch });

  it("an older resurrector of a capped run puts every payload back once, in order; it counts the rest twice in `payloads`, and the next fetch takes its `capped` field out", async () => {
    await call(
      protocol.ordered_enqueue,
      ORDERED_ENQUEUE_KEYS,
      orderedEnqueueArgs("e", [
        ["a", '"a1"', "1"],
        ["a", '"a2"', "2"],
        ["a", '"a3"', "3"],
      ]),
    );
    const run = idsOf(
      (await call(protocol.begin, beginKeys(options("dead-tick")), beginNamed(options("dead-tick")))).ordered,
    );
    expect(run.map((x) => x.payloads)).toEqual([['"a1"']]);
    expect(await h.redis.get(`${h.prefix}o:idx:payloads`)).toBe("2");
    await h.redis.del(`${h.prefix}tick:dead-tick`, `${h.prefix}resurrector`);
    // The older tick (no cap for the name, or the same: its resurrector reads no cap).
    const old = (o: BeginOptions) => ({ ...o, ordered: ["idx"] });
    await call(
      { ...protocol.begin, script: mainScripts.begin },
      beginKeys(old({ ...options("t2", 0), resurrectLimit: 0 })),
      beginNamed(old({ ...options("t2", 0), resurrectLimit: 0 })),
    );
    const kept = await call(
      { ...protocol.housekeep, script: mainScripts.housekeep },
      tickKeys("t2"),
      housekeepArgs({ tick: "t2", call: 2 }),
    );
    expect(kept.resurrected).toBe(1);
    expect(await h.redis.zrange(`${h.prefix}o:idx:p:a`, "0", "-1")).toEqual(['"a1"', '"a2"', '"a3"']);
    // 3 waiting, counted 5: the run's payload and, again, the rest of 2 (this version's resurrector: 3).
    expect(await h.redis.get(`${h.prefix}o:idx:payloads`)).toBe("5");
    expect(await h.redis.hgetall(`${h.prefix}o:idx:capped`)).toEqual({ a: "1" });
    // This version's next fetch of the id (uncapped here: the whole run) takes the old note out.
    const whole: BeginOptions = { tick: "t3", leaseMs: LEASE, ordered: ["idx"], batch: 10 };
    const next = idsOf((await call(protocol.begin, beginKeys(whole), beginNamed(whole))).ordered);
    expect(next.map((x) => x.payloads)).toEqual([['"a1"', '"a2"', '"a3"']]);
    expect(await h.redis.hgetall(`${h.prefix}o:idx:capped`)).toEqual({});
  });

  it("after an older resurrector, a larger cap's run of the id answered again (a replayed begin) is the whole run, and none of it is lost at its ack", async () => {
    await call(
      protocol.ordered_enqueue,
      ORDERED_ENQUEUE_KEYS,
      orderedEnqueueArgs("e", [
        ["a", '"a1"', "1"],
        ["a", '"a2"', "2"],
        ["a", '"a3"', "3"],
      ]),
    );
    await call(protocol.begin, beginKeys(options("dead-tick")), beginNamed(options("dead-tick")));
    await h.redis.del(`${h.prefix}tick:dead-tick`, `${h.prefix}resurrector`);
    const old = (o: BeginOptions) => ({ ...o, ordered: ["idx"] });
    await call(
      { ...protocol.begin, script: mainScripts.begin },
      beginKeys(old({ ...options("t2", 0), resurrectLimit: 0 })),
      beginNamed(old({ ...options("t2", 0), resurrectLimit: 0 })),
    );
    await call(
      { ...protocol.housekeep, script: mainScripts.housekeep },
      tickKeys("t2"),
      housekeepArgs({ tick: "t2", call: 2 }),
    );
    // A tick of this version with a cap of 5 takes "a" whole; its begin's reply is lost and the call resent.
    const wide: BeginOptions = { tick: "t3", leaseMs: LEASE, ordered: ["idx 5"], batch: 10 };
    const first = idsOf((await call(protocol.begin, beginKeys(wide), beginNamed(wide))).ordered);
    expect(first.map((x) => x.payloads)).toEqual([['"a1"', '"a2"', '"a3"']]);
    const again = idsOf((await call(protocol.begin, beginKeys(wide), beginNamed(wide))).ordered);
    expect(again.map((x) => x.payloads)).toEqual([['"a1"', '"a2"', '"a3"']]);
    await call(
      protocol.step,
      tickKeys("t3"),
      stepArgs({
        tick: "t3",
        leaseMs: LEASE,
        call: 2,
        batch: 10,
        ordered: { names: ["idx 5"], outcomes: again.map((item) => ({ kind: "succeeded", item })) },
      }),
    );
    expect(await h.redis.hgetall(`${h.prefix}o:idx:capped`)).toEqual({});
  });
});
