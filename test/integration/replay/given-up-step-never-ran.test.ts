// Over HTTP each call is its own request, and requests are not ordered: a step
// the tick gave up on (no answer to it or to its resend before finish) may be
// held in transit past finish, or dropped, and never run. Then its acks are
// made by finish, once (src/tick/given-up.ts asks given_up.lua which steps
// ran, and from that call on none can): its jobs do not stay in the tick's
// lists for a resurrector that would run them again, and the step, arriving
// after finish, acts on nothing. A step that ran late before finish made its
// acks itself: finish makes none of them again (with jobs of the same text, a
// producer that sets no jid, a second ack would take out a copy the late step
// fetched, and it would never run). Each pushed copy runs exactly once.
// Held at the client (test/helpers/held-step.ts): the request never left.
import { afterAll, afterEach, expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { given_up } from "../../../src/protocol/index.js";
import { describeOverAdapters, adapterCases } from "../../helpers/adapters.js";
import { holdStep } from "../../helpers/held-step.js";
import { deleteUnder, directRedis, uniquePrefix } from "../../helpers/redis.js";

const TIMEOUT_MS = 300;
// Long past the give-up and the resend (≈ 2 s), so that the question finds the lease under load too.
const LEASE_MS = 6_000;
const COPIES = 20;
const text = JSON.stringify({ class: "work", args: [0], queue: "default" });
const http = adapterCases.filter((c) => c.name === "upstash" || c.name === "rest");

describeOverAdapters(http, "a given-up step no resend reached, over $name", (adapterCase) => {
  const prefix = uniquePrefix(`givenup-never-ran-${adapterCase.name}`);
  const redis = directRedis();
  afterEach(() => deleteUnder(redis, prefix));
  afterAll(() => void redis.disconnect());

  /** A tick whose first job's ack goes in a step held at the client; `late` runs it at Redis before finish. */
  async function tickWithHeldStep(late: boolean) {
    const opened = adapterCase.open();
    const hold = holdStep(opened.adapter);
    let runs = 0;
    const tq = createTickq({
      redis: hold.adapter,
      prefix,
      redisTimeoutMs: TIMEOUT_MS,
      logger: { info: () => {}, warn: () => {}, error: () => {} },
      jobs: {
        work: () => {
          if (runs++ === 0) hold.arm(text);
        },
      },
    });
    await redis.rpush(`${prefix}queue:default`, ...Array.from({ length: COPIES }, () => text));
    if (late) hold.releaseBefore(given_up.script);
    const failed = await tq
      .tick({ batch: 5, concurrency: 1, budgetMs: 20_000, leaseMs: LEASE_MS })
      .then(() => undefined)
      .catch((e: unknown) => e);
    return { opened, hold, tq, failed, runs: () => runs };
  }

  it("never ran: finish acks its jobs, none is left for a resurrector, each copy runs once", async () => {
    const { opened, hold, tq, failed, runs } = await tickWithHeldStep(false);
    try {
      // Not every given-up step was answered: the tick says so.
      expect(failed).toMatchObject({ code: "REDIS_TIMEOUT" });
      expect(hold.held()).toBeGreaterThan(0);
      // Finish made the held step's acks: nothing waits in the tick's lists.
      expect((await tq.stats()).inflight).toBe(0);
      // The step reaches Redis after finish: it acts on nothing.
      await hold.release();
      expect((await tq.stats()).inflight).toBe(0);
      for (let i = 0; i < 20 && runs() < COPIES; i++) await tq.tick({ batch: 5, budgetMs: 5_000, leaseMs: LEASE_MS });
      expect(runs()).toBe(COPIES);
      expect(await redis.llen(`${prefix}queue:default`)).toBe(0);
      expect((await tq.stats()).inflight).toBe(0);
    } finally {
      await opened.close();
    }
  }, 45_000);

  it("never ran, arriving after the lease lapsed: fenced, acts on nothing; each copy runs once", async () => {
    const { opened, hold, tq, failed, runs } = await tickWithHeldStep(false);
    try {
      expect(failed).toMatchObject({ code: "REDIS_TIMEOUT" });
      expect(hold.held()).toBeGreaterThan(0);
      expect((await tq.stats()).inflight).toBe(0);
      // The lease hash finish left to its TTL lapses (as after LEASE_MS); the question's fence stays.
      const leases = await redis.keys(`${prefix}tick:*`);
      expect(leases).toHaveLength(1);
      await redis.del(...leases);
      expect(await redis.keys(`${prefix}gaveup:*`)).toHaveLength(1);
      const queuedBefore = await redis.llen(`${prefix}queue:default`);
      // The step reaches Redis now, on a lost lease below the fence: it acks nothing and fetches nothing
      // (the tick's lists are empty here, so this asserts the outcome; the mixed case, one step that ran
      // beside it, is given-up-step-after-lease.test.ts, where only the fence keeps a copy from being taken).
      await hold.release();
      expect(await redis.llen(`${prefix}queue:default`)).toBe(queuedBefore);
      expect(Number(await redis.get(`${prefix}stat:processed`))).toBe(runs());
      for (let i = 0; i < 20 && runs() < COPIES; i++) await tq.tick({ batch: 5, budgetMs: 5_000, leaseMs: LEASE_MS });
      expect({ runs: runs(), processed: Number(await redis.get(`${prefix}stat:processed`)) }).toEqual({
        runs: COPIES,
        processed: COPIES,
      });
      expect(await redis.llen(`${prefix}queue:default`)).toBe(0);
      expect((await tq.stats()).inflight).toBe(0);
    } finally {
      await opened.close();
    }
  }, 45_000);

  it("ran late before finish: finish makes none of its acks again, each copy runs once", async () => {
    const { opened, tq, failed, runs } = await tickWithHeldStep(true);
    try {
      expect(failed).toMatchObject({ code: "REDIS_TIMEOUT" });
      // What the late step fetched waits behind the lease for a resurrector; then every copy has run once.
      const until = Date.now() + 30_000;
      while (Date.now() < until) {
        const left = (await tq.stats()).inflight + (await redis.llen(`${prefix}queue:default`));
        if (left === 0 && runs() >= COPIES) break;
        await tq.tick({ batch: 5, budgetMs: 2_000, leaseMs: LEASE_MS });
        await new Promise((r) => setTimeout(r, 200));
      }
      expect({ runs: runs(), queued: await redis.llen(`${prefix}queue:default`) }).toEqual({ runs: COPIES, queued: 0 });
      expect((await tq.stats()).inflight).toBe(0);
    } finally {
      await opened.close();
    }
  }, 45_000);
});
