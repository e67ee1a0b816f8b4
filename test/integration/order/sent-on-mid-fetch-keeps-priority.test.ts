// A fetch that frees a dead holder's slot sends the key's parked job to the
// head of its queue (lib/flow/slots.lua): with a priority or a group it lands
// in the queue's priority set or a group's set, which did not exist when the
// fetch began. A later take of that queue in the same fetch still honours
// it (the priority job before the plain jobs queued behind it; the group in
// its turn), as it would one call later. A put-back by the step's own ack
// comes before the fetch and is seen by it, with its counts.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { enqueueQueued } from "../../helpers/flow-queued.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { acksOf, jobsOf, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;

describe.each(adapterCases)("a parked job sent on during a fetch over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "order-sent-mid-fetch");
  const { call, callTwice } = scriptCalls(h);
  const key = (name: string) => `${h.prefix}${name}`;
  const begin = (tick: string, queues: string[], batch: number) =>
    call(protocol.begin, beginKeys({ tick, leaseMs: LEASE }), beginNamed({ tick, leaseMs: LEASE, queues, batch }));

  it.each([
    { how: "a priority", order: { priority: 5 }, expected: ["p", "c1"] },
    { how: "a group", order: { group: "g" }, expected: ["c1", "p"] },
  ])(
    "with $how, is taken in its queue's order when the fetch reaches that queue after the release",
    async ({ order, expected }) => {
      const tq = h.make({
        sync: {
          perform: () => {},
          uniqueKey: ([k]: [string, string]) => k,
          rateLimit: { key: ([, r]: [string, string]) => r, limit: 1, periodMs: 60_000 },
        },
        plain: { perform: () => {} },
      });
      // The rate key r1 is used up by z, which a live tick runs.
      await tq.enqueue("sync", ["kz", "r1"], { unique: "while-executing", jid: "z", queue: "a" });
      expect(jobsOf((await begin("t0", ["a"], 1)).fetched).map((f) => JSON.parse(f.raw).jid)).toEqual(["z"]);
      // p (priority 5, queue b) waits parked on k behind a live holder; then j (queue a, key k, rate r1) is queued.
      await h.redis.set(key("tick:other"), "1", "PX", 60_000);
      await h.redis.set(key("flow:owner:u:k"), "other");
      await tq.enqueue("sync", ["k", "r2"], { unique: "while-executing", jid: "p", queue: "b", ...order });
      expect((await h.redis.lrange(key("flow:park:u:k"), 0, -1)).map((j) => JSON.parse(j).jid)).toEqual(["p"]);
      await enqueueQueued(h, tq, [
        {
          name: "sync" as const,
          args: ["k", "r1"] as [string, string],
          unique: "while-executing" as const,
          jid: "j",
          queue: "a",
        },
      ]);
      await tq.enqueue("plain", [], { jid: "c1", queue: "b" });
      await tq.enqueue("plain", [], { jid: "c2", queue: "b" });
      expect(await h.redis.exists(key("prio:b"), key("groups:b"))).toBe(0);
      await h.redis.del(key("tick:other")); // the holder's lease ends

      // j frees k (its holder is dead), which sends p on into prio:b, and is
      // deferred by its rate limit; then queue b is taken: p first.
      const { first } = await callTwice(
        protocol.begin,
        beginKeys({ tick: "t1", leaseMs: LEASE }),
        beginNamed({ tick: "t1", leaseMs: LEASE, queues: ["a", "b"], batch: 2 }),
      );
      expect(jobsOf(first.fetched).map((f) => JSON.parse(f.raw).jid)).toEqual(expected);
    },
  );

  it("a job of priority 5 put back by a step's ack, which alone makes its queue's priority set, is fetched by the same step ahead of plain jobs", async () => {
    const tq = h.make({ w: { perform: () => {} } });
    await tq.enqueue("w", [], { jid: "p", queue: "b", priority: 5 });
    let [held] = jobsOf((await begin("t1", ["b"], 1)).fetched);
    expect(JSON.parse(held!.raw).jid).toBe("p");
    await tq.enqueue("w", [], { jid: "c1", queue: "b" });
    await tq.enqueue("w", [], { jid: "c2", queue: "b" });
    expect(await h.redis.exists(key("prio:b"), key("groups:b"))).toBe(0);
    for (const kind of ["unstarted", "interrupted", "inDoubt"] as const) {
      const call = { unstarted: 2, interrupted: 3, inDoubt: 4 }[kind];
      const args = stepArgs({
        tick: "t1",
        leaseMs: LEASE,
        call,
        acks: acksOf([{ kind, job: held! }]),
        batch: 1,
        queues: ["b"],
      });
      const { first } = await callTwice(protocol.step, tickKeys("t1"), args);
      const [again] = jobsOf(first.fetched);
      expect(JSON.parse(again!.raw).jid, kind).toBe("p");
      held = again;
    }
    expect(held).toMatchObject({ interruptions: 1, doubts: 1 });
  });
});
