// The budgets of the ticks that served a queue (lib/tick/record-unstartable.lua): finish writes its
// budget when none is kept, when it is larger, when the kept one is past the window, and when the
// same budget was written half a window ago or more; a tick that keeps the same budget within half
// the window writes nothing (the kept one stays fresh: read as stale only a window after it was
// written). Run twice with the same arguments, finish leaves what its first run left.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { finishArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const WINDOW = 300_000;

describe.each(adapterCases)("a tick's budget kept for a queue, run twice, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "budget-kept");
  const { call, callTwice } = scriptCalls(h);
  /** A tick that begins and finishes with `budgetMs`, its finish run twice, the clock `aheadMs` on. */
  async function tick(name: string, budgetMs: number, aheadMs: number) {
    await h.redis.set(`${h.prefix}testclock`, String(aheadMs));
    const options = { tick: name, leaseMs: LEASE, batch: 1 };
    await call(protocol.begin, beginKeys(options), beginNamed(options));
    const args = finishArgs({
      tick: name,
      leaseMs: LEASE,
      call: 2,
      unstartable: { budgetMs, windowMs: WINDOW, entries: [] },
    });
    const { first, after } = await callTwice(protocol.finish, tickKeys(name), args);
    return { now: first.nowMs, kept: (after.budgets as Record<string, string>).default };
  }

  it("the same budget is written again only half a window after it was", async () => {
    const t1 = await tick("t1", 10_000, 0);
    expect(t1.kept).toBe(`10000 ${t1.now}`);
    const t2 = await tick("t2", 10_000, 60_000);
    expect(t2.kept).toBe(`10000 ${t1.now}`);
    const t3 = await tick("t3", 10_000, WINDOW / 2 + 1_000);
    expect(t3.kept).toBe(`10000 ${t3.now}`);
  });

  it("a larger budget is written at once, a smaller one only once the larger is past the window", async () => {
    const t1 = await tick("t1", 10_000, 0);
    const t2 = await tick("t2", 20_000, 1_000);
    expect(t2.kept).toBe(`20000 ${t2.now}`);
    const t3 = await tick("t3", 10_000, WINDOW / 2 + 2_000);
    expect(t3.kept).toBe(`20000 ${t2.now}`);
    const t4 = await tick("t4", 10_000, WINDOW + 2_000);
    expect(t4.kept).toBe(`10000 ${t4.now}`);
    expect(t1.now).toBeLessThan(t4.now);
  });
});
