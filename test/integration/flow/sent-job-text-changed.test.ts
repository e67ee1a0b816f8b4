// The job a release sent on is remembered by the SHA-1 of its text; when run
// now or a due move splices a new `enqueued_at` into it and it is then deleted,
// the key's parked jobs (and any enqueued meanwhile) still run, oldest first,
// and stats return to 0 (F.sent, F.unstrand). Run over ioredis only.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

type Args = [key: string, tag: string];

describe.each(adapterCases.slice(0, 1))(
  "a deferred job sent on for a key, brought back to its queue and deleted, over $name",
  (adapterCase) => {
    const h = useHarness(adapterCase, "adv3-sent-text");
    const key = (name: string) => `${h.prefix}${name}`;

    const setUp = async (periodMs: number) => {
      const ran: string[] = [];
      let done!: () => void;
      const gate = new Promise<void>((resolve) => (done = resolve));
      const jobs = {
        sync: { perform: ([, tag]: Args) => (tag === "h" ? gate : void ran.push(tag)), uniqueKey: ([k]: Args) => k },
        limited: {
          perform: ([, tag]: Args) => void ran.push(tag),
          uniqueKey: ([k]: Args) => k,
          rateLimit: { key: () => "r", limit: 1, periodMs },
        },
      };
      const tq = h.make(jobs);
      const holder = h.make(jobs, { queues: ["hold"] });

      // The rate limit of `limited` is spent for a minute (a job of another key used it).
      await tq.enqueue("limited", ["other", "warm"], { unique: "while-executing" });
      await tq.tick({ batch: 10, budgetMs: 2_000 });
      expect(ran).toEqual(["warm"]);

      // A holder has key k; x (limited, same unique key), then p1, p2 (sync) park behind it.
      await holder.enqueue("sync", ["k", "h"], { queue: "hold", unique: "while-executing" });
      const holding = holder.tick({ batch: 1, concurrency: 1, budgetMs: 10_000 });
      while (!(await h.redis.exists(key("flow:owner:u:k")))) await new Promise((r) => setTimeout(r, 5));
      const x = await tq.enqueue("limited", ["k", "x"], { unique: "while-executing" });
      for (const tag of ["p1", "p2"]) await tq.enqueue("sync", ["k", tag], { unique: "while-executing" });
      expect(await h.redis.llen(key("flow:park:u:k"))).toBe(3);

      done();
      await holding; // the release sends x on (flow:sent names it)
      await tq.tick({ batch: 10, budgetMs: 2_000 }); // x is over its rate limit: deferred to the schedule set
      expect((await tq.jobs.find(x))?.state).toBe("scheduled");
      expect(await h.redis.exists(key("flow:owner:u:k"))).toBe(0); // the key is free
      const drain = async () => {
        for (let i = 0; i < 10 && ran.length < 3; i++) await tq.tick({ batch: 10, budgetMs: 2_000 });
        return ran;
      };
      return { tq, x, drain, ran };
    };

    it("run now, then delete: the jobs parked on the key still run", async () => {
      const { tq, x, drain } = await setUp(60_000);
      await tq.jobs.runNow(x); // back in its queue, its text with a new enqueued_at
      await tq.jobs.delete(x); // never runs: the key's parked jobs must move on
      expect(await drain()).toEqual(["warm", "p1", "p2"]);
      expect((await tq.stats()).flow.sync).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
    });

    it("run now, then delete, then a day passes (flow:sent's entry no longer believed): the parked jobs still run", async () => {
      const { tq, x, drain } = await setUp(60_000);
      await tq.jobs.runNow(x);
      await tq.jobs.delete(x);
      // A day later (the entry's UNTIL_MS moved into the past): nothing moves parked jobs on by itself.
      const [sha] = (await h.redis.hget(key("flow:sent"), "u:k"))!.split(" ");
      await h.redis.hset(key("flow:sent"), "u:k", `${sha} ${Date.now() - 1}`);
      expect(await drain()).toEqual(["warm", "p1", "p2"]);
      expect((await tq.stats()).flow.sync).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
    });

    it("run now, then delete: a while-executing job enqueued afterwards (it parks behind them): all of them run", async () => {
      const { tq, x, drain, ran } = await setUp(60_000);
      await tq.jobs.runNow(x);
      await tq.jobs.delete(x);
      await tq.enqueue("sync", ["k", "p3"], { unique: "while-executing" });
      await drain();
      for (let i = 0; i < 3 && ran.length < 4; i++) await tq.tick({ batch: 10, budgetMs: 1_000 });
      expect(ran).toEqual(["warm", "p1", "p2", "p3"]);
      expect((await tq.stats()).flow.sync).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
    });

    it("due (moved to its paused queue by a tick's schedule pass), then delete: the jobs parked on the key still run", async () => {
      const { tq, x, drain } = await setUp(1_500);
      await tq.queues.pause("default");
      await new Promise((r) => setTimeout(r, 1_600));
      await tq.tick({ batch: 10, budgetMs: 1_000 }); // the schedule pass moves x to its queue (enqueued_at spliced in)
      expect((await tq.jobs.find(x))?.state).toBe("queued");
      await tq.jobs.delete(x);
      await tq.queues.resume("default");
      expect(await drain()).toEqual(["warm", "p1", "p2"]);
      expect((await tq.stats()).flow.sync).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
    });
  },
);
