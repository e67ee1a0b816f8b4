// The pipeline's steps over HTTP (`overlap`): at most two in flight, never
// two in one lane, the second half a round trip after the first and in a
// later turn of the event loop; over TCP one at a time and no lane. Every
// job is run once and acked once either way.
import { describe, expect, it } from "vitest";
import type { Fence } from "../../src/tick/fence.js";
import { runPipeline, type PipelineInput, type StepReply } from "../../src/tick/pipeline.js";
import type { Lane } from "../../src/tick/step-lanes.js";

const fence: Fence = { valid: () => true, confirmed() {}, confirm: async () => true, age: () => 0, stop() {} };

interface Sent {
  lane: Lane | undefined;
  at: number;
  fetch: number;
  acks: number;
  /** Sent while another was in flight. */
  beside: boolean;
}

/** Runs a pipeline of batch 10 from `first` over `step`, each job recorded in `ran` as it starts. */
function drainPipeline(
  first: number[],
  step: PipelineInput<number, number>["step"],
  o: { concurrency: number; overlap: boolean },
  ran: number[],
) {
  return runPipeline<number, number>({
    first,
    firstFull: true,
    batch: 10,
    concurrency: o.concurrency,
    fence,
    signal: new AbortController().signal,
    graceMs: 1_000,
    lanes: o.overlap ? "requests" : "one",
    run: async (job) => {
      ran.push(job);
      return job;
    },
    interrupted: (job) => job,
    unstarted: (job) => job,
    step,
    onOutcome() {},
  });
}

async function drain(overlap: boolean, jobs: number, roundTripMs: number) {
  const queue = Array.from({ length: jobs }, (_, i) => i);
  const sent: Sent[] = [];
  const inFlight = new Set<Lane | undefined>();
  let most = 0;
  const ran: number[] = [];
  const acked: number[] = [];
  const step: PipelineInput<number, number>["step"] = async (acks, fetch, _solo, _load, lane) => {
    expect(inFlight.has(lane), `a second step in lane ${lane}`).toBe(false);
    sent.push({ lane, at: performance.now(), fetch, acks: acks.length, beside: inFlight.size > 0 });
    inFlight.add(lane);
    most = Math.max(most, inFlight.size);
    await new Promise((resolve) => setTimeout(resolve, roundTripMs));
    acked.push(...acks);
    inFlight.delete(lane);
    return { held: true, fetched: queue.splice(0, fetch) } satisfies StepReply<number>;
  };
  const result = await drainPipeline(queue.splice(0, 10), step, { concurrency: 10, overlap }, ran);
  acked.push(...result.finished);
  return { sent, most, ran, acked, result };
}

describe("the pipeline's steps", () => {
  it("over HTTP: two in flight at most, one a lane, every job run and acked once", async () => {
    const { sent, most, ran, acked } = await drain(true, 400, 20);
    expect(most).toBe(2);
    expect(new Set(sent.map((s) => s.lane))).toEqual(new Set(["a", "b"]));
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    expect(sorted(ran)).toEqual(Array.from({ length: 400 }, (_, i) => i));
    expect(sorted(acked)).toEqual(sorted(ran));
    // Each step fetched a batch or was the last: no more requests than one a batch, and a few.
    expect(sent.length).toBeLessThanOrEqual(400 / 10 + 3);
  });

  it("over HTTP, jobs taking no time: steps go beside another, half a round trip after it at the soonest", async () => {
    const { sent } = await drain(true, 300, 20);
    const beside = sent.filter((s) => s.beside);
    // How many go beside moves with the timers' lateness under load (bench/upstash.ts measures the
    // gain); that some do, and never sooner than half a round trip, does not.
    expect(beside.length).toBeGreaterThan(0);
    for (const s of beside) {
      const before = sent[sent.indexOf(s) - 1]!;
      // Timers may fire a millisecond early.
      expect(s.at - before.at).toBeGreaterThanOrEqual(20 / 2 - 2);
    }
  });

  it("over HTTP, each step is its own request when the client sends the calls made in one turn as one, though a fill outlasts half a round trip", async () => {
    // As @upstash/redis' auto-pipelining: calls made before two microtasks pass go in one request. Now and then a job
    // holds the CPU past half a round trip (a loaded host's stall) in the fill that sent a step.
    const queue = Array.from({ length: 300 }, (_, i) => i);
    const requests: number[][] = [];
    let open: number[] | undefined;
    let beside = 0;
    let inFlight = 0;
    const step: PipelineInput<number, number>["step"] = async (_acks, fetch, _solo, _load, lane) => {
      if (inFlight > 0) beside++;
      inFlight++;
      let request = open;
      if (request === undefined) {
        const made: number[] = [];
        request = open = made;
        void Promise.resolve()
          .then(() => undefined)
          .then(() => {
            open = undefined;
            requests.push(made);
          });
      }
      request.push(fetch);
      await new Promise((resolve) => setTimeout(resolve, 4));
      inFlight--;
      return { held: true, fetched: queue.splice(0, fetch) } satisfies StepReply<number>;
    };
    const ran: number[] = [];
    await runPipeline<number, number>({
      first: queue.splice(0, 10),
      firstFull: true,
      batch: 10,
      concurrency: 10,
      fence,
      signal: new AbortController().signal,
      graceMs: 1_000,
      lanes: "requests",
      run: (job) => {
        ran.push(job);
        if (job >= 100 && job % 50 === 5) for (const until = performance.now() + 6; performance.now() < until; );
        return job;
      },
      interrupted: (job) => job,
      unstarted: (job) => job,
      step,
      onOutcome() {},
    });
    expect(ran).toHaveLength(300);
    expect(beside).toBeGreaterThan(0);
    expect(requests.filter((calls) => calls.length > 1)).toEqual([]);
  });

  it("over TCP: one at a time, no lane", async () => {
    const { sent, most, ran } = await drain(false, 100, 2);
    expect(most).toBe(1);
    expect(sent.every((s) => s.lane === undefined)).toBe(true);
    expect(ran).toHaveLength(100);
  });
});

describe("the pipeline's steps over HTTP, answered out of order", () => {
  it("starts the jobs in the order their steps fetched them, when the later step's reply comes back first", async () => {
    // Redis takes each call as it arrives (the fetch happens at send); lane a's replies come back late,
    // lane b's at once, as one slow request among quick ones does over HTTP.
    const queue = Array.from({ length: 200 }, (_, i) => i);
    const ran: number[] = [];
    let overtaken = 0;
    let inFlight = 0;
    const step: PipelineInput<number, number>["step"] = async (_acks, fetch, _solo, _load, lane) => {
      const fetched = queue.splice(0, fetch);
      if (inFlight > 0 && lane === "b") overtaken++;
      inFlight++;
      await new Promise((resolve) => setTimeout(resolve, lane === "a" ? 30 : 1));
      inFlight--;
      return { held: true, fetched } satisfies StepReply<number>;
    };
    await drainPipeline(queue.splice(0, 10), step, { concurrency: 1, overlap: true }, ran);
    // The case under test happened: a lane b step went beside a slow lane a step.
    expect(overtaken).toBeGreaterThan(0);
    expect(ran).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });
});

describe("the pipeline's steps over HTTP, run by Redis out of send order", () => {
  it("starts the jobs of the step Redis ran first first, when the step sent second reached Redis first", async () => {
    // Each lane a step reaches Redis only after a lane b step sent after it has run (or a while passed):
    // lane b's fetches the jobs ahead. Redis numbers each step as it runs it (step.lua's `ran`).
    const queue = Array.from({ length: 200 }, (_, i) => i);
    const ran: number[] = [];
    let runs = 0;
    let bRan = 0;
    let overtaken = 0;
    let aHeld = 0;
    const step: PipelineInput<number, number>["step"] = async (_acks, fetch, _solo, _load, lane) => {
      if (lane === "a") {
        aHeld++;
        const seen = bRan;
        for (let i = 0; i < 20 && bRan === seen; i++) await new Promise((resolve) => setTimeout(resolve, 2));
        aHeld--;
      }
      const fetched = queue.splice(0, fetch);
      const number = ++runs;
      if (lane === "b") {
        bRan++;
        if (aHeld > 0) overtaken++;
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
      return { held: true, fetched, ran: lane === undefined ? undefined : number } satisfies StepReply<number>;
    };
    await drainPipeline(queue.splice(0, 10), step, { concurrency: 10, overlap: true }, ran);
    // The case under test happened: a lane b step ran before a lane a step sent earlier.
    expect(overtaken).toBeGreaterThan(0);
    expect(ran).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });
});
