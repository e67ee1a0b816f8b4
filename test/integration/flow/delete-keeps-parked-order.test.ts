// Deleting a queued job of a key whose next job a release already sent to the
// queue (jobs.delete, or clear.lua of the queue) keeps the key's parked jobs
// running oldest first: the job sent on holds no slot yet, and moving another
// parked job in front of it would send it to the back (F.unstrand).
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import * as protocol from "../../../src/protocol/index.js";

type Args = [key: string, tag: string];

describe.each(adapterCases)(
  "deleting a queued job of a key whose next job is already queued over $name",
  (adapterCase) => {
    const h = useHarness(adapterCase, "adv2-unstrand-order");
    const key = (name: string) => `${h.prefix}${name}`;

    // A holder had the key with p1, p2, p3 parked behind it (oldest first); its release sent p1 to the queue
    // (a real release: the holder runs from queue "hold", which its tick alone serves, so p1 waits in "default");
    // then q, a job of the key enqueued while it is free, parks behind p2 and p3 (p1 waits in the queue for the slot).
    // Deleting q, which was not sent on, must move nothing.
    const setUp = async () => {
      const ran: string[] = [];
      let done!: () => void;
      const gate = new Promise<void>((resolve) => (done = resolve));
      const jobs = {
        sync: { perform: ([, tag]: Args) => (tag === "h" ? gate : void ran.push(tag)), uniqueKey: ([k]: Args) => k },
      };
      const tq = h.make(jobs);
      const holder = h.make(jobs, { queues: ["hold"] });
      await holder.enqueue("sync", ["k", "h"], { queue: "hold", unique: "while-executing" });
      const holding = holder.tick({ batch: 1, concurrency: 1, budgetMs: 10_000 });
      while (!(await h.redis.exists(key("flow:owner:u:k")))) await new Promise((r) => setTimeout(r, 5));
      for (const tag of ["p1", "p2", "p3"])
        await tq.enqueue("sync", ["k", tag], { unique: "while-executing", jid: tag });
      expect(await h.redis.llen(key("flow:park:u:k"))).toBe(3);
      done();
      await holding; // its ack frees the key and sends p1 on
      expect(await h.redis.llen(key("flow:park:u:k"))).toBe(2);
      const q = await tq.enqueue("sync", ["k", "q"], { unique: "while-executing", jid: "q" });
      expect(await h.redis.llen(key("queue:default"))).toBe(1);
      expect(await h.redis.llen(key("flow:park:u:k"))).toBe(3);
      const drain = async () => {
        for (let i = 0; i < 10 && ran.length < 3; i++) await tq.tick({ batch: 10, budgetMs: 2_000 });
        return ran;
      };
      return { tq, q, drain };
    };

    it("jobs.delete of it: the parked jobs still run oldest first (p1, p2, p3)", async () => {
      const { tq, q, drain } = await setUp();
      await tq.jobs.delete(q);
      expect(await drain()).toEqual(["p1", "p2", "p3"]);
      expect((await tq.stats()).flow.sync).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
    });

    it("clear.lua of the queue, then the parked jobs: they run oldest first (p2, p3)", async () => {
      const { call } = scriptCalls(h);
      const ran: string[] = [];
      const tq = h.make({ sync: { perform: ([, tag]: Args) => void ran.push(tag), uniqueKey: ([k]: Args) => k } });
      await h.redis.set(key("flow:owner:u:k"), "other-tick");
      for (const tag of ["p1", "p2", "p3"])
        await tq.enqueue("sync", ["k", tag], { unique: "while-executing", jid: tag });
      await h.redis.del(key("flow:owner:u:k"));
      // Two jobs of the key queued while it is free (p1 as a release sends it on; q, which enqueue parks behind it,
      // moved to the queue as though it came due from the schedule): both cleared.
      await h.redis.rpoplpush(key("flow:park:u:k"), key("queue:default"));
      await h.redis.hincrby(key("flow:waiting"), "sync", -1);
      await tq.enqueue("sync", ["k", "q"], { unique: "while-executing", jid: "q" });
      await h.redis.lmove(key("flow:park:u:k"), key("queue:default"), "LEFT", "LEFT");
      await h.redis.hincrby(key("flow:waiting"), "sync", -1);
      expect(await call(protocol.clear, { set: "queue:default" }, { token: "tok", keepMs: 60_000 })).toBe(2);
      // The key has one slot: one parked job need move on; the rest stay parked, in order.
      for (let i = 0; i < 10 && ran.length < 2; i++) await tq.tick({ batch: 10, budgetMs: 2_000 });
      expect(ran).toEqual(["p2", "p3"]);
    });
  },
);
