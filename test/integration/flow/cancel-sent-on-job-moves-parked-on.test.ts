// Cancelling the queued job a release sent on for its key (tq.jobs.cancel,
// cancel.lua) moves the key's next parked job on, as a delete does: the key
// is free, and nothing else would wake the jobs parked behind it
// (F.unstrand, which puts that job back at the head of its queue).
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

type Args = [key: string, tag: string];

describe.each(adapterCases)("cancelling the job sent on for a free key over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cancel-sent-on");
  const key = (name: string) => `${h.prefix}${name}`;

  it("is cancelled, and the jobs parked behind it run oldest first (p2, p3)", async () => {
    const ran: string[] = [];
    let done!: () => void;
    const gate = new Promise<void>((resolve) => (done = resolve));
    const jobs = {
      sync: { perform: ([, tag]: Args) => (tag === "h" ? gate : void ran.push(tag)), uniqueKey: ([k]: Args) => k },
    };
    const tq = h.make(jobs);
    // The holder runs from queue "hold", which its tick alone serves, so the job its release sends on waits.
    const holder = h.make(jobs, { queues: ["hold"] });
    await holder.enqueue("sync", ["k", "h"], { queue: "hold", unique: "while-executing" });
    const holding = holder.tick({ batch: 1, concurrency: 1, budgetMs: 10_000 });
    while (!(await h.redis.exists(key("flow:owner:u:k")))) await new Promise((r) => setTimeout(r, 5));
    for (const tag of ["p1", "p2", "p3"]) await tq.enqueue("sync", ["k", tag], { unique: "while-executing", jid: tag });
    done();
    await holding; // its ack frees the key and sends p1 on
    expect(await h.redis.llen(key("queue:default"))).toBe(1);
    expect(await h.redis.llen(key("flow:park:u:k"))).toBe(2);

    expect(await tq.jobs.cancel("p1")).toMatchObject({ state: "cancelled", from: "queued" });
    expect(await h.redis.llen(key("flow:park:u:k"))).toBe(1);
    for (let i = 0; i < 10 && ran.length < 2; i++) await tq.tick({ batch: 10, budgetMs: 2_000 });
    expect(ran).toEqual(["p2", "p3"]);
    expect((await tq.stats()).flow.sync).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
  });
});
