// A job a release sent on into a paused queue (or one that then parks on
// another key) must not hold its free key: a job of that key enqueued into a
// served queue still runs at once instead of parking behind it at enqueue
// (lib/flow/claims.lua F.enqueue, F.sent_waits). Run over ioredis only.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

type Args = [key: string, tag: string];

describe.each(adapterCases.slice(0, 1))("a job sent on into a paused queue, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "adv3-paused-blocks");
  const key = (name: string) => `${h.prefix}${name}`;

  it("a job of its key enqueued into a served queue still runs while the key is free", async () => {
    const ran: string[] = [];
    let done!: () => void;
    const gate = new Promise<void>((resolve) => (done = resolve));
    const jobs = {
      sync: { perform: ([, tag]: Args) => (tag === "h" ? gate : void ran.push(tag)), uniqueKey: ([k]: Args) => k },
    };
    const tq = h.make(jobs, { queues: ["default", "slow"] });
    const holder = h.make(jobs, { queues: ["hold"] });
    await holder.enqueue("sync", ["k", "h"], { queue: "hold", unique: "while-executing" });
    const holding = holder.tick({ batch: 1, concurrency: 1, budgetMs: 10_000 });
    while (!(await h.redis.exists(key("flow:owner:u:k")))) await new Promise((r) => setTimeout(r, 5));
    await tq.queues.pause("slow");
    await tq.enqueue("sync", ["k", "s"], { unique: "while-executing", queue: "slow" }); // parks behind the holder
    done();
    await holding; // the release sends s on, into the paused queue "slow"
    expect(await h.redis.llen(key("queue:slow"))).toBe(1);
    expect(await h.redis.exists(key("flow:owner:u:k"))).toBe(0);

    await tq.enqueue("sync", ["k", "n"], { unique: "while-executing" });
    for (let i = 0; i < 3 && ran.length < 1; i++) await tq.tick({ batch: 10, budgetMs: 1_000 });
    expect(ran).toEqual(["n"]);
    expect((await tq.stats()).flow.sync).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
  });

  it("a job sent on for k that parks on another key: a job of k enqueued afterwards still runs while k is free", async () => {
    const ran: string[] = [];
    let doneZ!: () => void;
    let doneH!: () => void;
    const gateZ = new Promise<void>((resolve) => (doneZ = resolve));
    const gateH = new Promise<void>((resolve) => (doneH = resolve));
    const perform = ([, tag]: Args) => (tag === "Z" ? gateZ : tag === "h" ? gateH : void ran.push(tag));
    const jobs = {
      sync: { perform, uniqueKey: ([k]: Args) => k },
      capped: { perform, uniqueKey: ([k]: Args) => k, concurrency: { key: () => "all", limit: 1 } },
    };
    const tq = h.make(jobs);
    const holdsAll = h.make(jobs, { queues: ["hold-all"] });
    const holdsK = h.make(jobs, { queues: ["hold-k"] });
    await holdsAll.enqueue("capped", ["z", "Z"], { queue: "hold-all", unique: "while-executing" });
    const holdingAll = holdsAll.tick({ batch: 1, concurrency: 1, budgetMs: 10_000 });
    await holdsK.enqueue("sync", ["k", "h"], { queue: "hold-k", unique: "while-executing" });
    const holdingK = holdsK.tick({ batch: 1, concurrency: 1, budgetMs: 10_000 });
    while (!(await h.redis.exists(key("flow:owner:u:k"))) || !(await h.redis.exists(key("flow:owner:u:z"))))
      await new Promise((r) => setTimeout(r, 5));
    await tq.enqueue("capped", ["k", "x"], { unique: "while-executing" }); // parks on u:k
    doneH();
    await holdingK; // sends x on (flow:sent names it for u:k)
    await tq.tick({ batch: 10, budgetMs: 1_000 }); // x: k is free, "all" is full: parked on "all"
    expect(await h.redis.exists(key("flow:owner:u:k"))).toBe(0);

    try {
      await tq.enqueue("sync", ["k", "n"], { unique: "while-executing" });
      for (let i = 0; i < 3 && ran.length < 1; i++) await tq.tick({ batch: 10, budgetMs: 1_000 });
      expect(ran).toEqual(["n"]);
    } finally {
      doneZ();
      await holdingAll;
    }
  });
});
