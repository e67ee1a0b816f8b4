// The pipeline's steps over one connection (`lanes: "connection"`: TCP): a second
// step goes as soon as it is due, in the other lane ('c', 'd'), with no
// spacing, and waits queued at Redis, which runs calls in the order sent.
// Each step still fetches a whole batch, no more than two batches are ever
// fetched and not started, every job runs and is acked once, and a call that
// records a solo run never goes beside another.
import { describe, expect, it } from "vitest";
import type { Fence } from "../../src/tick/fence.js";
import { runPipeline, type PipelineInput, type StepReply } from "../../src/tick/pipeline.js";
import type { Lane } from "../../src/tick/step-lanes.js";

const fence: Fence = { valid: () => true, confirmed() {}, confirm: async () => true, age: () => 0, stop() {} };
const BATCH = 10;

interface Sent {
  lane: Lane | undefined;
  fetch: number;
  solo: boolean;
  /** Steps in flight as it went, itself included. */
  inFlight: number;
  /** Jobs fetched and not started as it went, plus those it and the steps in flight ask for. */
  ahead: number;
}

/** Drains `jobs` jobs that return at once over a fake connection: Redis runs each call `redisMs` after the last. */
async function drainOverConnection(jobs: number, o: { alone?: (job: number) => boolean; redisMs?: number } = {}) {
  const queue = Array.from({ length: jobs }, (_, i) => i);
  const sent: Sent[] = [];
  const ran: number[] = [];
  const acked: number[] = [];
  let inFlight = 0;
  let asked = 0;
  let held = BATCH;
  // Calls run one after the other, in the order sent.
  let redis = Promise.resolve();
  const step: PipelineInput<number, number>["step"] = (acks, fetch, solo, _load, lane) => {
    inFlight++;
    asked += fetch;
    sent.push({ lane, fetch, solo: solo !== undefined, inFlight, ahead: held + asked });
    const done = redis.then(async () => {
      await new Promise((resolve) => setTimeout(resolve, o.redisMs ?? 1));
      acked.push(...acks);
      return queue.splice(0, fetch);
    });
    redis = done.then(() => {});
    return done.then((fetched) => {
      inFlight--;
      asked -= fetch;
      held += fetched.length;
      return { held: true, fetched } satisfies StepReply<number>;
    });
  };
  const result = await runPipeline<number, number>({
    first: queue.splice(0, BATCH),
    firstFull: true,
    batch: BATCH,
    concurrency: BATCH,
    fence,
    signal: new AbortController().signal,
    graceMs: 1_000,
    lanes: "connection",
    alone: o.alone,
    run: (job) => {
      held--;
      ran.push(job);
      return job;
    },
    interrupted: (job) => job,
    unstarted: (job) => job,
    step,
    onOutcome() {},
  });
  acked.push(...result.finished);
  return { sent, ran, acked };
}

describe("the pipeline's steps over one connection", () => {
  it("go two at a time in lanes c and d, each a whole batch, every job run and acked once", async () => {
    const { sent, ran, acked } = await drainOverConnection(300);
    expect(Math.max(...sent.map((s) => s.inFlight))).toBe(2);
    expect(new Set(sent.map((s) => s.lane))).toEqual(new Set(["c", "d"]));
    // Never two in one lane: lanes alternate while two are in flight.
    for (let i = 1; i < sent.length; i++)
      if (sent[i]!.inFlight === 2) expect(sent[i]!.lane).not.toBe(sent[i - 1]!.lane);
    // A step beside another fetches a whole batch: one call a batch, and the last ones.
    for (const s of sent.filter((s) => s.inFlight === 2)) expect(s.fetch).toBe(BATCH);
    expect(sent.length).toBeLessThanOrEqual(300 / BATCH + 2);
    // At most two batches fetched and not started, counting what the steps in flight ask for.
    for (const s of sent) expect(s.ahead).toBeLessThanOrEqual(2 * BATCH);
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    expect(ran).toEqual(Array.from({ length: 300 }, (_, i) => i));
    expect(sorted(acked)).toEqual(ran);
  });

  it("record a solo job with no other step in flight, and start it alone", async () => {
    const { sent, ran } = await drainOverConnection(100, { alone: (job) => job === 45 });
    const solo = sent.filter((s) => s.solo);
    // One call records it, one clears it (or the next step's marker replaces it).
    expect(solo.length).toBeGreaterThanOrEqual(1);
    for (const s of solo) expect(s.inFlight).toBe(1);
    expect(ran).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });
});
