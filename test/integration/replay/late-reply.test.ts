// A tick call whose reply comes later than redisTimeoutMs, after Redis ran
// it (a slow HTTP round trip under load): the tick sends the call again and
// the replay answers the kept reply. Once, the tick gave up at the first
// timeout (its patience began at the send, and one timeout spent it all): a
// lost begin or step reply left the jobs it fetched in the tick's in-process
// list behind a 30 s lease, and with no cron nothing ticked again to put
// them back (test/integration/kick/worker.test.ts under load: 298 of 300 ran).
import { describe, expect, it } from "vitest";
import { begin, finish, step } from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { holdReplies } from "../../helpers/held-replies.js";

/** The Worker's and the Node server's own: a call merely slow under load is not mistaken for the held one. */
const TIMEOUT_MS = 2_000;
const scripts = { begin: begin.script, step: step.script, finish: finish.script };

describe.each(adapterCases)("a tick call's reply later than redisTimeoutMs, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "late-reply");

  for (const call of ["begin", "step", "finish"] as const) {
    it(`of ${call}: the tick sends it again, every job runs once and none is left in the tick's list`, async () => {
      const runs = new Map<number, number>();
      const jobs = { work: (args: [number]) => void runs.set(args[0], (runs.get(args[0]) ?? 0) + 1) };
      await h.make(jobs).enqueueBulk(Array.from({ length: 40 }, (_, i) => ({ name: "work", args: [i] })));
      const hold = holdReplies(h.adapter, scripts[call]);
      const tq = h.make(jobs, { redis: hold.adapter, redisTimeoutMs: TIMEOUT_MS });
      hold.arm();
      try {
        const report = await tq.tick({ batch: 10, concurrency: 1, budgetMs: 20_000 });
        await hold.held();
        expect(report).toMatchObject({ succeeded: 40, fetched: 40, leaseLost: false });
      } finally {
        hold.release();
      }
      expect([...runs.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
      expect([...runs.values()].every((n) => n === 1)).toBe(true);
      expect(await tq.stats()).toMatchObject({ processed: 40, inflight: 0, queues: { default: 0 } });
    });
  }
});
