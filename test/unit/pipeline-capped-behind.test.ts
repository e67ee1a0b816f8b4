// A fetch that took a capped ordered run with payloads behind it (StepReply.behind, begin's firstBehind)
// is kept in mind until a step that acked every job the tick held fetched none such: a later short
// fetch of other jobs does not end the tick with that run's rest due only after finish's acks.
import { describe, expect, it } from "vitest";
import type { Fence } from "../../src/tick/fence.js";
import { runPipeline, type PipelineInput, type StepReply } from "../../src/tick/pipeline.js";

const fence: Fence = { valid: () => true, confirmed() {}, confirm: async () => true, age: () => 0, stop() {} };
const BATCH = 10;
const CAPPED = 100; // its rest, 101, is due once 100 is acked

describe("a pipeline holding a capped run with its rest behind it", () => {
  it("takes the rest with a step once every job settled, though a short fetch of others came between", async () => {
    const queue = [10];
    const ran: number[] = [];
    let releaseCapped: () => void = () => {};
    const othersRan = new Promise<void>((resolve) => (releaseCapped = resolve));
    const step: PipelineInput<number, number>["step"] = async (acks, fetch) => {
      await Promise.resolve();
      if (acks.includes(CAPPED)) queue.push(CAPPED + 1);
      return { held: true, fetched: queue.splice(0, fetch) } satisfies StepReply<number>;
    };
    const result = await runPipeline<number, number>({
      first: [CAPPED, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      firstFull: true,
      firstBehind: true,
      batch: BATCH,
      concurrency: BATCH,
      fence,
      signal: new AbortController().signal,
      graceMs: 1_000,
      lanes: "one",
      run: (job) => {
        if (job === CAPPED) return othersRan.then(() => (ran.push(job), job));
        ran.push(job);
        if (job === 10) releaseCapped();
        return job;
      },
      interrupted: (job) => job,
      unstarted: (job) => job,
      step,
      onOutcome() {},
    });
    expect(ran).toContain(CAPPED + 1);
    expect(result.drained).toBe(true);
  });
});
