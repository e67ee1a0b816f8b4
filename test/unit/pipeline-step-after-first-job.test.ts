// Jobs whose handlers return at once run every held job in the fill that
// starts them, so over TCP their next step goes after the fill's first job
// (pipeline.ts lowWater): Redis works on it while the rest run. Each step
// still fetches a whole batch, so steps a job do not change. The jobs here
// work synchronously for a while, which held the step back to half a batch
// before (the lead followed the rate the jobs reached); the assertions hold
// at any speed.
import { describe, expect, it } from "vitest";
import type { Fence } from "../../src/tick/fence.js";
import { runPipeline, type PipelineInput, type StepReply } from "../../src/tick/pipeline.js";

const fence: Fence = { valid: () => true, confirmed() {}, confirm: async () => true, age: () => 0, stop() {} };
const BATCH = 10;

/** Synchronous work of some 0.2 ms: a handler that returns at once, not a no-op. */
function work(job: number): number {
  const until = performance.now() + 0.2;
  let n = job;
  while (performance.now() < until) n = (n * 31 + 7) % 1_000_003;
  return n;
}

describe("jobs that settle within their start, over TCP", () => {
  it("send each step after the fill's first job, fetching a whole batch, every job run and acked once", async () => {
    const queue = Array.from({ length: 300 }, (_, i) => i);
    const sent: { fetch: number; waiting: number; acks: number }[] = [];
    const ran: number[] = [];
    const acked: number[] = [];
    const step: PipelineInput<number, number>["step"] = async (acks, fetch, _solo, load) => {
      sent.push({ fetch, waiting: load.waiting, acks: acks.length });
      await new Promise((resolve) => setTimeout(resolve, 1));
      acked.push(...acks);
      return { held: true, fetched: queue.splice(0, fetch) } satisfies StepReply<number>;
    };
    const result = await runPipeline<number, number>({
      first: queue.splice(0, BATCH),
      firstFull: true,
      batch: BATCH,
      concurrency: BATCH,
      fence,
      signal: new AbortController().signal,
      graceMs: 1_000,
      lanes: "one",
      run: (job) => {
        ran.push(job);
        work(job);
        return job;
      },
      interrupted: (job) => job,
      unstarted: (job) => job,
      step,
      onOutcome() {},
    });
    acked.push(...result.finished);
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    expect(ran).toEqual(Array.from({ length: 300 }, (_, i) => i));
    expect(sorted(acked)).toEqual(ran);
    // After the first fill, every step that fetched went with the rest of its fill still held.
    const fetching = sent.slice(1).filter((s) => s.fetch > 0);
    expect(fetching.length).toBeGreaterThan(20);
    for (const s of fetching) expect(s).toMatchObject({ fetch: BATCH, waiting: BATCH - 1 });
    expect(sent.length).toBeLessThanOrEqual(300 / BATCH + 3);
  });
});
