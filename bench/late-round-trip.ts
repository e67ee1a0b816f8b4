// The low-water mark over HTTP against late round trips, the pipeline alone
// (no Redis, no HTTP server: the jitter is the fake step's): the jobs of
// bench/upstash-realistic.ts (0–100 ms, seeded), concurrency 50, batch 100,
// steps that take `--rtt-ms` and one in `--late-every` that takes
// `--late-ms` (seeded). Over HTTP (`overlap`) the lead covers the slowest
// round trip lately; one step at a time (no overlap), the mean, as before.
// Alternating rounds; prints jobs/s as a share of the limit, the slot-time
// left idle while no fetched job was held though the queue had more, and
// steps a job.
//   npx tsx bench/late-round-trip.ts [--jobs 4000] [--rounds 5] [--rtt-ms 22] [--late-ms 80] [--late-every 10]
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import type { Fence } from "../src/tick/fence.js";
import { runPipeline, type StepReply } from "../src/tick/pipeline.js";
import { seededRng } from "./chaos/rng.js";
import { alternate, median, spread } from "./alternating.js";
import { durations, limitOf } from "./jobs.js";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "4000" },
    rounds: { type: "string", default: "5" },
    "rtt-ms": { type: "string", default: "22" },
    "late-ms": { type: "string", default: "80" },
    "late-every": { type: "string", default: "10" },
    seed: { type: "string", default: "1" },
  },
});
const CONCURRENCY = 50;
const BATCH = 100;
const fence: Fence = { valid: () => true, confirmed() {}, confirm: async () => true, age: () => 0, stop() {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

async function drain(overlap: boolean, list: readonly number[]) {
  const queue = [...list.keys()];
  const late = seededRng(Number(values.seed) + 7);
  const rtt = Number(values["rtt-ms"]);
  let steps = 0;
  let held = 0;
  let running = 0;
  let starved = 0;
  let at = performance.now();
  // Before each change of `held` or `running`: the slot-time idle since the last while none was
  // held and jobs still waited in the queue (not the last wave's).
  const mark = () => {
    const t = performance.now();
    if (held === 0 && queue.length > 0) starved += (CONCURRENCY - running) * (t - at);
    at = t;
  };
  const t0 = performance.now();
  at = t0;
  const first = queue.splice(0, BATCH);
  held = first.length;
  await runPipeline<number, number>({
    first,
    firstFull: true,
    batch: BATCH,
    concurrency: CONCURRENCY,
    fence,
    signal: new AbortController().signal,
    graceMs: 1_000,
    lanes: overlap ? "requests" : "one",
    run: async (job) => {
      mark();
      held--;
      running++;
      const ms = list[job]!;
      if (ms > 0) await sleep(ms);
      mark();
      running--;
      return job;
    },
    interrupted: (job) => job,
    unstarted: (job) => job,
    async step(_acks, fetch) {
      steps++;
      await sleep(late() < 1 / Number(values["late-every"]) ? Number(values["late-ms"]) : rtt);
      const fetched = queue.splice(0, fetch);
      mark();
      held += fetched.length;
      return { held: true, fetched } satisfies StepReply<number>;
    },
    onOutcome() {},
  });
  const ms = performance.now() - t0;
  return { rate: (list.length / ms) * 1000, starved: starved / (CONCURRENCY * ms), steps: steps / list.length };
}

const list = durations(Number(values.jobs), Number(values.seed));
const limit = limitOf(list, CONCURRENCY);
const variants = [
  { label: "over HTTP: lead covers the slowest round trip lately", overlap: true },
  { label: "one step at a time: lead covers the mean round trip", overlap: false },
];
console.log(
  `${list.length} jobs of 0–100 ms, concurrency ${CONCURRENCY}, batch ${BATCH}; steps of ${values["rtt-ms"]} ms, ` +
    `one in ${values["late-every"]} ${values["late-ms"]} ms; ${values.rounds} alternating rounds; load average at start ${load()}`,
);
const samples = await alternate({
  variants,
  rounds: Number(values.rounds),
  jobs: list.length,
  drain: (v, n) => drain(v.overlap, list.slice(0, n)),
});
console.table(
  variants.map((v) => {
    const s = samples.get(v)!;
    const rates = s.map((x) => (x.rate / limit) * 100);
    return {
      variant: v.label,
      "% of limit (median)": median(rates).toFixed(1),
      "min–max": spread(rates, 1),
      "idle, none held (median %)": (median(s.map((x) => x.starved)) * 100).toFixed(2),
      "steps/job": median(s.map((x) => x.steps)).toFixed(4),
    };
  }),
);
console.log(`load average at end ${load()}`);
