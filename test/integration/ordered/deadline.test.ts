// An ordered id that a tick's deadline interrupts did not kill its tick: it
// is put back to run again beside the others (no solo run, lib/tick/run-solo.lua,
// and no extra round trip), and one that always overruns ends dead as
// TickqDeadlineExceeded, never as a poison job whose tick died.
import { describe, expect, it } from "vitest";
import type { OrderedContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const untilAborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));

describe.each(adapterCases)("ordered ids at the deadline over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-deadline");

  it("an interrupted id runs again beside the others, not alone", async () => {
    let running = 0;
    let most = 0;
    let interrupted = false;
    const tq = h.make(
      {},
      {
        ordered: {
          idx: {
            perform: async (id: string, _payloads: unknown[], ctx: OrderedContext) => {
              running++;
              most = Math.max(most, running);
              try {
                if (id === "slow" && !interrupted) {
                  interrupted = true;
                  await untilAborted(ctx.signal);
                  throw new Error("aborted");
                }
                await sleep(300);
              } finally {
                running--;
              }
            },
          },
        },
      },
    );
    await tq.enqueueOrdered("idx", { id: "slow", payload: 1, score: 1 });
    // Until the run started and was interrupted: on a loaded host a tick's budget may end before it starts.
    let first = await tq.tick({ budgetMs: 300, graceMs: 200 });
    for (let k = 0; k < 20 && !interrupted; k++) first = await tq.tick({ budgetMs: 300, graceMs: 200 });
    expect(interrupted).toBe(true);
    expect(first.requeued).toBe(1);
    most = 0;
    await tq.enqueueOrdered("idx", { id: "other", payload: 1, score: 2 });
    const second = await tq.tick({ budgetMs: 5_000 });
    expect(second.succeeded).toBe(2);
    expect(most).toBe(2);
  });

  it("an id that always overruns ends dead as TickqDeadlineExceeded", async () => {
    let starts = 0;
    const tq = h.make(
      {},
      {
        maxResurrections: 2,
        ordered: {
          idx: {
            perform: async (_id: string, _payloads: unknown[], ctx: OrderedContext) => {
              starts++;
              await untilAborted(ctx.signal);
              throw new Error("aborted");
            },
          },
        },
      },
    );
    await tq.enqueueOrdered("idx", { id: "slow", payload: 1, score: 1 });
    // maxResurrections: 2 lets two runs overrun; the next take ends the id dead. A tick whose budget ran out
    // before the run started (a loaded host) hands the id back unstarted, no overrun: ticks until it is dead.
    const deadKey = `${h.prefix}o:idx:dead`;
    for (let k = 0; k < 20 && (await h.redis.zcard(deadKey)) === 0; k++) await tq.tick({ budgetMs: 200, graceMs: 200 });
    expect(starts).toBe(2);
    const dead = await h.redis.zrange(deadKey, "0", "-1");
    expect(dead).toHaveLength(1);
    expect(JSON.parse(dead[0]!)).toMatchObject({ error_class: "TickqDeadlineExceeded" });
    expect((await tq.stats()).processed).toBe(0);
  });
});
