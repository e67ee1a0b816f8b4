// A tick call whose reply is held while the tick's lease ends (expired, or
// a step's lease, kept alive by the fence, taken as a resurrector's check
// would find it gone): the resend reaches Redis with the lease gone
// (src/tick/calls.ts resends for up to leaseMs after the first failure). It must do no harm: a begin resent then answers
// "not begun" and fetches nothing (lib/tick/begun-ids.lua), a step resent
// then fetches nothing and acks only the jobs still in the tick's list; the
// jobs the first run fetched go back through resurrection and each runs once.
import { describe, expect, it } from "vitest";
import { begin, step } from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { holdReplies } from "../../helpers/held-replies.js";
import { sleep } from "../../helpers/redis.js";

/** Longer than the lease: the resend comes only after the lease has ended. */
const TIMEOUT_MS = 1_500;
const LEASE_MS = 300;
const TICK_ID = "late-lease";

describe.each(adapterCases)("a tick call resent after its lease ended, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "late-reply-lease");

  for (const [name, script] of [
    ["begin", begin.script],
    ["step", step.script],
  ] as const) {
    it(`of ${name}: fetches nothing more, and every job runs once after resurrection`, async () => {
      const runs = new Map<number, number>();
      const jobs = { work: (args: [number]) => void runs.set(args[0], (runs.get(args[0]) ?? 0) + 1) };
      await h.make(jobs).enqueueBulk(Array.from({ length: 30 }, (_, i) => ({ name: "work", args: [i] })));
      const hold = holdReplies(h.adapter, script);
      const tq = h.make(jobs, { redis: hold.adapter, redisTimeoutMs: TIMEOUT_MS });
      hold.arm();
      let report: Awaited<ReturnType<typeof tq.tick>> | undefined;
      try {
        const ticking = tq
          .tick({ batch: 10, concurrency: 1, leaseMs: LEASE_MS, budgetMs: 20_000, tickId: TICK_ID })
          .catch(() => undefined);
        await hold.held();
        // The held call ran; its lease ends before the resend (redisTimeoutMs later) reaches Redis.
        await h.redis.del(`${h.prefix}tick:${TICK_ID}`);
        report = await ticking;
      } finally {
        hold.release();
      }
      // The held call fetched 10 more: not one of them ran in this tick, nor was any fetched again.
      // Over TCP a second step may have gone beside the held one (pipeline.ts): its batch, fetched,
      // waits in the tick's list as the held call's does, and none of it ran.
      const ranInTick = runs.size;
      expect(ranInTick).toBe(name === "begin" ? 0 : 10);
      expect(report).toMatchObject({ succeeded: ranInTick, leaseLost: true });
      expect(report?.fetched).toBeGreaterThanOrEqual(ranInTick);
      expect(report?.fetched).toBeLessThanOrEqual(ranInTick + 10);
      await sleep(LEASE_MS + 50);
      // A healthy tick resurrects what the held call fetched and runs the rest (a few, in case one ends early).
      const healthy = h.make(jobs);
      const left = async () => {
        const stats = await healthy.stats();
        return (stats.queues.default ?? 0) + stats.inflight;
      };
      for (let i = 0; i < 5 && (await left()) > 0; i++) await healthy.tick({ batch: 50 });
      expect([...runs.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));
      expect([...runs.values()].every((n) => n === 1)).toBe(true);
      expect(await healthy.stats()).toMatchObject({ processed: 30, inflight: 0, ticks: 0, queues: { default: 0 } });
    });
  }
});
