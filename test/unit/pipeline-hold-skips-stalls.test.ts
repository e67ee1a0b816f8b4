// The hold time (prefetch.ts) counts the time the process ran: a stall of the
// process (a loaded host) frees no slot, so jobs held across one longer than
// the hold stay, and start as the running jobs end, even when those ends take
// a few turns of the loop after the stall (a failure's deflated backtrace
// waits on the thread pool). Running jobs that outlast the hold while the
// process runs still send the held jobs back (here they end once they did).
import { describe, expect, it } from "vitest";
import type { Fence } from "../../src/tick/fence.js";
import { HOLD_MS } from "../../src/tick/prefetch.js";
import { runPipeline } from "../../src/tick/pipeline.js";

const fence: Fence = { valid: () => true, confirmed() {}, confirm: async () => true, age: () => 0, stop() {} };

const turn = () => new Promise((resolve) => setTimeout(resolve, 1));

/** The process stands still for `ms`: no timer, no reply, no settle runs. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/**
 * Six jobs on three slots, one fetch: each job ends `endMs` after it starts, then `turns` turns of the
 * loop later; with `untilHandedBack`, once the held jobs went back (or after `endMs`, should they never).
 */
async function sixOnThreeSlots(o: { endMs: number; turns: number; stallMs?: number; untilHandedBack?: boolean }) {
  const ran: number[] = [];
  const acked: number[] = [];
  let stalled = false;
  let handBack = () => {};
  const handedBack = new Promise<void>((resolve) => (handBack = resolve));
  const result = await runPipeline<number, number>({
    first: [0, 1, 2, 3, 4, 5],
    firstFull: false,
    batch: 20,
    concurrency: 3,
    fence,
    signal: new AbortController().signal,
    graceMs: 1_000,
    run: async (job) => {
      ran.push(job);
      // The first job's start is followed by the stall, the others' ends still to come.
      if (o.stallMs !== undefined && !stalled) {
        stalled = true;
        setTimeout(() => stall(o.stallMs!), 0);
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const ended = new Promise((resolve) => (timer = setTimeout(resolve, o.endMs)));
      await (o.untilHandedBack ? Promise.race([handedBack, ended]) : ended);
      clearTimeout(timer);
      for (let i = 0; i < o.turns; i++) await turn();
      return job;
    },
    interrupted: (job) => job,
    unstarted: (job) => -1 - job,
    step: async (acks) => {
      acked.push(...acks);
      if (acks.some((job) => job < 0)) handBack();
      return { held: true, fetched: [] };
    },
    onOutcome() {},
  });
  // Unstarted jobs are acked as -1 - job.
  return { ran, handedBack: result.handedBack, acked: [...acked, ...result.finished].sort((a, b) => a - b) };
}

describe("the hold time", () => {
  it("skips a stall of the process longer than itself: held jobs stay and start as the running jobs end", async () => {
    const { ran, handedBack, acked } = await sixOnThreeSlots({ endMs: 5, turns: 5, stallMs: HOLD_MS + 150 });
    expect(handedBack).toBe(0);
    expect(ran).toEqual([0, 1, 2, 3, 4, 5]);
    expect(acked).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("counts the time the process runs: jobs held behind slots busy longer than it go back", async () => {
    const { ran, handedBack, acked } = await sixOnThreeSlots({ endMs: 10_000, turns: 0, untilHandedBack: true });
    expect(handedBack).toBe(3);
    expect(ran).toEqual([0, 1, 2]);
    expect(acked).toEqual([-6, -5, -4, 0, 1, 2]);
  });
});
