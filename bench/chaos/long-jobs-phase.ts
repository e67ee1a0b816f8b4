// Long jobs beside short ones, several ticks: a job a tick fetched must not
// wait for that tick's slots while they are busy with jobs of seconds
// (src/tick/prefetch.ts: a tick holds what its slots start soon, and hands back
// the rest). Tick loops in this process share one queue on the private
// Redis, over the phase's adapter; two runs of jobs of 2–4 s, each as long
// as a tick's concurrency (one at the head), among many of 0–50 ms. Each job's wait runs from the
// reply that fetched it into the tick that ran it to its start
// (bench/prefetch-wait.ts); the longest must stay under half the shortest
// long job, so no job sat behind one. No fault is injected here:
// the promise is about where a job runs, not whether it survives.
import { startUpstashLocal, type UpstashLocalServer } from "../../tools/upstash-local/server.js";
import { createTickq } from "../../src/index.js";
import { timingAdapter } from "../prefetch-wait.js";
import { columnOf, mustBeZero, mustMatch, problemsOf, type Check, type Column } from "./checks.js";
import { openEndpoint, type Endpoint } from "./connect.js";
import type { ChaosPhase, PhaseContext } from "./phase-types.js";

// Runs of one tick's concurrency (a tick that fetches one has every slot
// busy), fewer in all than the loops' slots: a short job always has a free
// slot somewhere.
const LONG = { runs: 2, minMs: 2_000, maxMs: 4_000 };
const LOOPS = 3;
const SHORT = { count: 400, maxMs: 50 };
const TICK = { concurrency: 4, batch: 8, budgetMs: 10_000 };
/** A wait this long means a job sat behind a long one. */
const WAIT_BOUND_MS = LONG.minMs / 2;
const TIME_LIMIT_MS = 90_000;

interface LongJobsResult {
  planned: number;
  ran: number;
  longestWaitMs: number;
  /** Jobs whose wait passed WAIT_BOUND_MS, as "i: ms". */
  overBound: string[];
  handedBack: number;
  ticks: number;
  problems: string[];
}

const checks: Check<LongJobsResult>[] = [
  mustMatch(
    "jobs run / planned",
    (r) => r.ran,
    (r) => r.planned,
    "every job runs once the loops stop",
  ),
  { label: "longest wait of a fetched job for a slot (ms)", value: (r) => Math.round(r.longestWaitMs) },
  mustBeZero(
    `fetched jobs that waited over ${WAIT_BOUND_MS} ms for a slot`,
    (r) => r.overBound.length,
    (r) => r.overBound,
  ),
  { label: "jobs handed back by a busy tick", value: (r) => r.handedBack },
  { label: "ticks", value: (r) => r.ticks },
];

async function runLongJobs(ctx: PhaseContext): Promise<LongJobsResult> {
  const prefix = `chaos:${ctx.runId}:long-${ctx.adapter}:`;
  let rest: UpstashLocalServer | undefined;
  let endpoint: Endpoint = { adapter: "ioredis", url: ctx.redis.url };
  if (ctx.adapter === "upstash") {
    rest = await startUpstashLocal({ redisUrl: ctx.redis.url, token: `chaos-long-${ctx.runId}` });
    endpoint = { adapter: "upstash", url: rest.url, token: rest.token };
  }
  const opened = openEndpoint(endpoint);
  const fetchedAt = new Map<number, number>();
  const startedAt = new Map<number, number>();
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const jobs = {
    sleep: async ([ms, i]: [number, number]) => {
      startedAt.set(i, performance.now());
      await sleep(ms);
    },
  };
  const quiet = { info: () => {}, warn: () => {}, error: () => {} };
  const tq = createTickq({ redis: await timingAdapter(opened.adapter, fetchedAt), prefix, jobs, logger: quiet });
  const durations = Array.from({ length: SHORT.count }, () => Math.floor(ctx.rng() * (SHORT.maxMs + 1)));
  const long = () => LONG.minMs + Math.floor(ctx.rng() * (LONG.maxMs - LONG.minMs + 1));
  for (let r = 0; r < LONG.runs; r++) {
    const at = r === 0 ? 0 : Math.floor(ctx.rng() * durations.length);
    durations.splice(at, 0, ...Array.from({ length: TICK.concurrency }, long));
  }
  const result: LongJobsResult = {
    planned: durations.length,
    ran: 0,
    longestWaitMs: 0,
    overBound: [],
    handedBack: 0,
    ticks: 0,
    problems: [],
  };
  try {
    await tq.enqueueBulk(durations.map((ms, i) => ({ name: "sleep" as const, args: [ms, i] as [number, number] })));
    const until = performance.now() + TIME_LIMIT_MS;
    const loop = async () => {
      while (startedAt.size < durations.length && performance.now() < until) {
        const report = await tq.tick(TICK);
        result.ticks++;
        result.handedBack += report.requeued;
        if (report.fetched === 0) await sleep(20);
      }
    };
    const loops = Math.max(LOOPS, ctx.workers);
    ctx.log(
      `long jobs ${ctx.adapter}: ${durations.length} jobs, ${LONG.runs * TICK.concurrency} of seconds, ${loops} tick loops`,
    );
    await Promise.all(Array.from({ length: loops }, loop));
    result.ran = startedAt.size;
    for (const [i, start] of startedAt) {
      const wait = start - (fetchedAt.get(i) ?? start);
      result.longestWaitMs = Math.max(result.longestWaitMs, wait);
      if (wait > WAIT_BOUND_MS) result.overBound.push(`job ${i} (${durations[i]} ms) waited ${Math.round(wait)} ms`);
    }
    result.problems.push(...problemsOf(checks, result));
  } finally {
    opened.close();
    await rest?.close();
  }
  return result;
}

export const longJobsPhase: ChaosPhase = {
  name: "long jobs",
  async run(ctx): Promise<Column> {
    return columnOf(`long jobs ${ctx.adapter}`, checks, await runLongJobs(ctx));
  },
};
