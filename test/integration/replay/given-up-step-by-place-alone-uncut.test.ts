// A step the tick gave up on (over HTTP: held in transit) that names a whole fetched group by its
// place alone (src/tick/passes/ack.ts), which the script cannot cut so (here a resurrection count
// elsewhere: each settled job's count must be dropped beside it, by its text). It reaches Redis
// late, before finish: it leaves the group listed and answers its entries missed, in a reply
// nobody reads. given_up.lua then says it ran, so the tick takes its acks as made
// (src/tick/given-up.ts) and finish does not make them: the group's jobs stay in the tick's list
// and a resurrector runs each a second time, though every handler succeeded and nothing died.
// Each job must run once, and the tick's lists end empty.
import { afterAll, afterEach, expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { given_up } from "../../../src/protocol/index.js";
import { describeOverAdapters, adapterCases } from "../../helpers/adapters.js";
import { holdStep } from "../../helpers/held-step.js";
import { deleteUnder, directRedis, uniquePrefix } from "../../helpers/redis.js";

const TIMEOUT_MS = 300;
// Long past the give-up and the resend (≈ 2 s), so that the question finds the lease under load too.
const LEASE_MS = 6_000;
const JOBS = 20;
const job = (n: number) => JSON.stringify({ class: "work", args: [n], jid: `j${n}`, queue: "default" });
/** A step's arguments naming a group by place alone ("PLACE+COUNT"). */
const byPlaceAlone = (args: string[]) => args.some((a) => /^\d+\+\d+$/.test(a));
const http = adapterCases.filter((c) => c.name === "upstash" || c.name === "rest");

describeOverAdapters(http, "a given-up step naming a group by place alone, over $name", (adapterCase) => {
  const prefix = uniquePrefix(`givenup-place-${adapterCase.name}`);
  const redis = directRedis();
  afterEach(() => deleteUnder(redis, prefix));
  afterAll(() => void redis.disconnect());

  it("ran late, its group not cut: the group is still acked, no job runs twice", async () => {
    const opened = adapterCase.open();
    const hold = holdStep(opened.adapter);
    const runs = new Map<number, number>();
    const tq = createTickq({
      redis: hold.adapter,
      prefix,
      redisTimeoutMs: TIMEOUT_MS,
      logger: { info: () => {}, warn: () => {}, error: () => {} },
      jobs: { work: ([n]: [number]) => void runs.set(n, (runs.get(n) ?? 0) + 1) },
    });
    try {
      await redis.hset(`${prefix}resurrections`, "a job run elsewhere", "1");
      await redis.rpush(`${prefix}queue:default`, ...Array.from({ length: JOBS }, (_, n) => job(n)));
      hold.arm(byPlaceAlone);
      hold.releaseBefore(given_up.script);
      await tq
        .tick({ batch: 5, concurrency: 1, budgetMs: 20_000, leaseMs: LEASE_MS })
        .then(() => undefined)
        .catch((e: unknown) => e);
      // The scenario happened: a step naming a group by place alone was held, then ran.
      expect(hold.held()).toBe(0);
      const until = Date.now() + 30_000;
      while (Date.now() < until) {
        const left = (await tq.stats()).inflight + (await redis.llen(`${prefix}queue:default`));
        if (left === 0 && runs.size >= JOBS) break;
        await tq.tick({ batch: 5, budgetMs: 2_000, leaseMs: LEASE_MS });
        await new Promise((r) => setTimeout(r, 200));
      }
      const twice = [...runs].filter(([, k]) => k > 1).map(([n]) => n);
      expect({ ran: runs.size, twice }).toEqual({ ran: JOBS, twice: [] });
      expect((await tq.stats()).inflight).toBe(0);
    } finally {
      await opened.close();
    }
  }, 45_000);
});
