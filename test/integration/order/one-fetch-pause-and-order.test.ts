// One fetch over a paused plain queue, a queue with priorities and a group,
// and a plain queue (lib/tick/fetch-jobs.lua: one EXISTS over `paused` and
// every queue's priority and group keys, then each queue asked apart): the
// paused queue gives nothing, the ordered one its order, the plain one its
// FIFO; with `picks` (weighted slots) too. A replay answers the same.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { jobsOf, stepArgs, rawAcks, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;

describe.each(adapterCases)("one fetch over paused, ordered and plain queues over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "order-one-fetch");
  const { call, callTwice } = scriptCalls(h);
  const jidsOf = (fetched: Parameters<typeof jobsOf>[0]) => jobsOf(fetched).map((f) => JSON.parse(f.raw).jid as string);

  const fill = async () => {
    const tq = h.make({ w: { perform: () => {} } });
    await tq.enqueue("w", [], { jid: "a1", queue: "a" });
    await tq.enqueue("w", [], { jid: "b-low", queue: "b" });
    await tq.enqueue("w", [], { jid: "b-high", queue: "b", priority: 9 });
    await tq.enqueue("w", [], { jid: "b-g", queue: "b", group: "g" });
    await tq.enqueue("w", [], { jid: "c1", queue: "c" });
    await tq.enqueue("w", [], { jid: "c2", queue: "c" });
    return tq;
  };

  it("begin: skips the paused queue, takes the ordered one in its order and the plain one FIFO", async () => {
    const tq = await fill();
    await tq.queues.pause("a");
    const args = beginNamed({ tick: "t1", leaseMs: LEASE, queues: ["a", "b", "c"], batch: 10 });
    const { first, after } = await callTwice(protocol.begin, beginKeys({ tick: "t1", leaseMs: LEASE }), args);
    const fetched = jidsOf(first.fetched);
    // b's ring: the ungrouped turn (b-high, then b-low) and group g take turns.
    expect(fetched).toEqual(["b-high", "b-g", "b-low", "c1", "c2"]);
    expect((after["queue:a"] as string[]).map((j) => JSON.parse(j).jid)).toEqual(["a1"]);
  });

  it("step with weighted picks: the paused queue's slots go to the others, and it is left alone", async () => {
    const tq = await fill();
    await call(
      protocol.begin,
      beginKeys({ tick: "t1", leaseMs: LEASE }),
      beginNamed({ tick: "t1", leaseMs: LEASE, batch: 0, queues: ["a", "b", "c"] }),
    );
    await tq.queues.pause("a");
    const args = stepArgs({
      tick: "t1",
      leaseMs: LEASE,
      call: 2,
      acks: rawAcks(),
      batch: 4,
      queues: ["a", "b", "c"],
      picks: [1, 1, 2, 3],
    });
    const { first, after } = await callTwice(protocol.step, tickKeys("t1"), args);
    const fetched = jidsOf(first.fetched);
    expect(fetched).toEqual(["b-high", "c1", "b-g", "b-low"]);
    expect((after["queue:a"] as string[]).map((j) => JSON.parse(j).jid)).toEqual(["a1"]);
  });
});
