// A step of the host's wall clock (NTP, a resumed VM) while exclusive work
// runs. Backwards, a lease measured on the wall clock stops being extended
// yet looks valid: Redis expires it, another tick takes the ordered id or
// the unique key, and two runs overlap. Forwards, the guard believes the
// lease stale and aborts handlers for nothing. Both must change nothing:
// durations come from the monotonic clock. Date.now is stepped here while
// real timers and real Redis run; a second tick keeps ticking meanwhile.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { JobContext, OrderedContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

// Long enough that a loaded machine rarely leaves the lease in doubt (which would abort, rightly).
const LEASE_MS = 1_000;
const RUN_MS = 2_200; // over two leases: a lease nobody extends is gone well before the run ends
const STEP_AT_MS = 200;

/** Date.now() from now on returns the real time moved by `step(ms)`. */
function steppableDate(): (ms: number) => void {
  const real = Date.now.bind(Date);
  let skew = 0;
  vi.spyOn(Date, "now").mockImplementation(() => real() + skew);
  return (ms) => void (skew += ms);
}

const runFor = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

describe.each(adapterCases)("a step of the wall clock over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "clock-step");
  afterEach(() => vi.restoreAllMocks());

  for (const stepMs of [-60_000, 60_000]) {
    it(`${stepMs < 0 ? "back" : "forward"} by 60 s during a run: no two runs of an id or a unique key overlap, no handler aborts`, async () => {
      const step = steppableDate();
      const running = new Set<string>();
      const overlaps: string[] = [];
      const aborted: string[] = [];
      const runs: string[] = [];
      let stepped = false;
      const hold = async (what: string, signal: AbortSignal) => {
        if (running.has(what)) overlaps.push(what);
        running.add(what);
        runs.push(what);
        // Only the first runs are long: the duplicate that waited runs quickly.
        if (runs.length > 2) {
          running.delete(what);
          return;
        }
        // Stepped once both runs are under way, when no start asks Redis to confirm the lease.
        await runFor(STEP_AT_MS, signal);
        if (!stepped) {
          stepped = true;
          step(stepMs);
        }
        await runFor(RUN_MS - STEP_AT_MS, signal);
        if (signal.aborted) aborted.push(`${what}: ${String((signal.reason as Error)?.message)}`);
        running.delete(what);
      };
      const jobs = {
        once: { perform: (_args: [string], ctx: JobContext) => hold("key k", ctx.signal), uniqueKey: () => "k" },
      };
      const ordered = {
        work: { perform: (id: string, _p: unknown[], ctx: OrderedContext) => hold(`id ${id}`, ctx.signal) },
      };
      const first = h.make(jobs, { ordered });
      const other = h.make(jobs, { ordered });
      await first.enqueue("once", ["1"], { unique: "while-executing" });
      await first.enqueueOrdered("work", { id: "a", payload: 1, score: 1 });

      let done = false;
      const holding = first.tick({ leaseMs: LEASE_MS, concurrency: 2, budgetMs: 10_000 }).finally(() => (done = true));
      while (!stepped) await sleep(10);
      // A duplicate of the busy key arrives; the other tick, ticking all
      // along as a cron's next runs would, must leave it parked meanwhile.
      await other.enqueue("once", ["2"], { unique: "while-executing" });
      while (!done) {
        await other.tick({ leaseMs: LEASE_MS, budgetMs: 5_000 });
        await sleep(50);
      }
      expect(await holding).toMatchObject({ leaseLost: false });
      for (let i = 0; i < 20 && runs.length < 3; i++) await other.tick({ leaseMs: LEASE_MS, budgetMs: 5_000 });
      expect(overlaps, "runs that overlapped").toEqual([]);
      expect(aborted, "runs aborted").toEqual([]);
      expect(runs.sort()).toEqual(["id a", "key k", "key k"]);
    });
  }
});
