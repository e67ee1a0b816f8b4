// A handler that blocks the event loop for most of a lease keeps its tick
// from extending the lease, so the guard stops its exclusive run (a flow job
// holding a slot, an ordered id) for a lease in doubt, and the run goes back.
// Each stop is counted (`doubts`); the LEASE_DOUBTS_MAX-th is a failed
// attempt with an error that says why, so such a job cannot go round for ever.
import { describe, expect, it } from "vitest";
import { LEASE_DOUBTS_MAX } from "../../../src/ordered/guard.js";
import type { JobContext, OrderedContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const LEASE_MS = 2_000;
// Past the fence (it holds while the lease was confirmed less than 1,500 ms ago, counted from when
// the confirming call was sent), well inside the lease (counted from when it arrived): never lost.
const BLOCK_MS = 1_600;

function blockEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // CPU-bound work that never awaits
  }
}

/** Blocks the loop, then waits a moment as a handler honouring its signal does. */
async function spin(signal: AbortSignal): Promise<void> {
  blockEventLoop(BLOCK_MS);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, 200);
    signal.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}

const ERROR = new RegExp(
  `stopped ${LEASE_DOUBTS_MAX} times because its tick could not confirm its lease in time.*blocks the event loop`,
);

describe.each(adapterCases)("a handler that blocks the event loop over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "lease-doubts");

  it(`goes back ${LEASE_DOUBTS_MAX - 1} times, then fails the attempt with the reason (flow job)`, {
    timeout: 60_000,
  }, async () => {
    let runs = 0;
    const tq = h.make({
      spin: {
        perform: async (_args: [], ctx: JobContext) => {
          runs++;
          await spin(ctx.signal);
        },
        concurrency: { key: () => "one", limit: 1 },
      },
    });
    await tq.enqueue("spin", []);
    for (let k = 0; k < LEASE_DOUBTS_MAX; k++) {
      const report = await tq.tick({ leaseMs: LEASE_MS });
      expect(report.leaseLost).toBe(false);
    }
    expect(runs).toBe(LEASE_DOUBTS_MAX);
    const retries = await h.redis.zrange(`${h.prefix}retry`, "0", "-1");
    expect(retries).toHaveLength(1);
    const failed = JSON.parse(retries[0]!) as { error_class: string; error_message: string; retry_count: number };
    expect(failed).toMatchObject({ error_class: "TickqLeaseInDoubt", retry_count: 0 });
    expect(failed.error_message).toMatch(ERROR);
    expect(await h.redis.exists(`${h.prefix}doubts`)).toBe(0);
    expect(await tq.stats()).toMatchObject({ processed: 1, failed: 1 });
  });

  it("a coalesce job stopped in doubt is queued again as the one its duplicates merge into", {
    timeout: 30_000,
  }, async () => {
    const tq = h.make({
      spin: {
        perform: async (_args: [string], ctx: JobContext) => spin(ctx.signal),
        uniqueKey: ([key]: [string]) => key,
        concurrency: { key: () => "one", limit: 1 },
      },
    });
    const jid = await tq.enqueue("spin", ["k"], { unique: "coalesce" });
    expect(await tq.tick({ leaseMs: LEASE_MS })).toMatchObject({ succeeded: 0, requeued: 1, leaseLost: false });
    expect(await tq.enqueue("spin", ["k"], { unique: "coalesce" })).toBe(jid);
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(1);
  });

  it(`goes back ${LEASE_DOUBTS_MAX - 1} times, then fails the attempt (ordered id)`, { timeout: 60_000 }, async () => {
    let runs = 0;
    const tq = h.make(
      {},
      {
        ordered: {
          feed: {
            perform: async (_id: string, _payloads: number[], ctx: OrderedContext) => {
              runs++;
              await spin(ctx.signal);
            },
          },
        },
      },
    );
    await tq.enqueueOrdered("feed", { id: "a", payload: 1 });
    for (let k = 0; k < LEASE_DOUBTS_MAX; k++) {
      const report = await tq.tick({ leaseMs: LEASE_MS });
      expect(report.leaseLost).toBe(false);
    }
    expect(runs).toBe(LEASE_DOUBTS_MAX);
    // A failed run: the id waits out its backoff with one failure counted.
    expect(await h.redis.hget(`${h.prefix}o:feed:retries`, "a")).toBe("1");
    expect(await h.redis.zcard(`${h.prefix}o:feed:ready`)).toBe(1);
    expect(await h.redis.exists(`${h.prefix}o:feed:doubts`)).toBe(0);
    expect(h.logged.join("\n")).toMatch(/exclusive run\(s\) stopped/);
  });
});
