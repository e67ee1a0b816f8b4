// The serverless part of `npm run bench` (also `npm run bench:serverless`):
//   enqueue-to-start latency, p50/p99, with and without kick, on the Node
//   server and on the bundled Worker in Miniflare, and with kick mounted in
//   Express and Fastify, under Bun and Deno, through the Lambda handler and
//   the Netlify function (targets with kick: p50 ≤ 50 ms, p99 ≤ 250 ms); and the fan-out drain of N jobs sleeping 50 ms,
//   concurrency 10 per tick, maxParallel 1 versus 4 (target ≥ 3×).
//   --kick-samples 50  --cron-seconds 60 (0: skip the Worker without kick)
//   --fanout-jobs 20000 (0: skip)  --fanout-parallel 1,4  --fanout-sleep-ms 50
import { parseArgs } from "node:util";
import { findRedis } from "../src/platforms/node/find-redis.js";
import { fanOutDrain, type FanOutRow } from "./serverless/fanout.js";
import { lambdaLatency } from "./serverless/latency-lambda.js";
import { mountedLatency } from "./serverless/latency-mounted.js";
import { netlifyLatency } from "./serverless/latency-netlify.js";
import { nodeLatency } from "./serverless/latency-node.js";
import { runtimeLatency } from "./serverless/latency-runtime.js";
import { workerLatency } from "./serverless/latency-worker.js";
import { latencyTable, type LatencyRow } from "./serverless/stats.js";

/** Declared here and spread into bench/drain.ts's own parseArgs, which refuses unknown options. */
export const serverlessOptions = {
  "kick-samples": { type: "string", default: "50" },
  "cron-seconds": { type: "string", default: "60" },
  "fanout-jobs": { type: "string", default: "20000" },
  "fanout-parallel": { type: "string", default: "1,4" },
  "fanout-sleep-ms": { type: "string", default: "50" },
} as const;

export type ServerlessValues = { [K in keyof typeof serverlessOptions]: string };

export async function runServerlessBench(values: ServerlessValues, redisUrl: string): Promise<void> {
  const samples = Number(values["kick-samples"]);
  const cron = Number(values["cron-seconds"]);
  const rows: LatencyRow[] = [];
  for (const kick of [true, false]) {
    process.stdout.write(`measuring enqueue-to-start on the Node server, kick ${kick ? "on" : "off"}…\n`);
    rows.push(await nodeLatency(redisUrl, kick, samples));
  }
  for (const framework of ["Express", "Fastify"] as const) {
    process.stdout.write(`measuring enqueue-to-start with tickq mounted in ${framework}, kick on…\n`);
    rows.push(await mountedLatency(redisUrl, framework, samples));
  }
  for (const runtime of ["Bun", "Deno"] as const) {
    process.stdout.write(`measuring enqueue-to-start under ${runtime} (its binary), kick on…\n`);
    rows.push(await runtimeLatency(redisUrl, runtime, samples));
  }
  process.stdout.write("measuring enqueue-to-start through the Lambda handler (lambda-local), kick on…\n");
  rows.push(await lambdaLatency(redisUrl, samples));
  process.stdout.write("measuring enqueue-to-start through the Netlify function, kick on…\n");
  rows.push(await netlifyLatency(redisUrl, samples));
  for (const kick of cron > 0 ? [true, false] : [true]) {
    process.stdout.write(
      `measuring enqueue-to-start on the Worker in Miniflare, kick ${kick ? "on" : `off (a ${cron} s cron)`}…\n`,
    );
    rows.push(await workerLatency(redisUrl, kick, samples, cron));
  }
  console.log(
    `\nEnqueue-to-start latency: POST /jobs until the handler starts, ${samples} jobs one at a time; targets with kick: p50 ≤ 50 ms, p99 ≤ 250 ms`,
  );
  console.table(latencyTable(rows));

  const n = Number(values["fanout-jobs"]);
  if (n <= 0) return;
  const sleepMs = Number(values["fanout-sleep-ms"]);
  const fan: FanOutRow[] = [];
  for (const p of values["fanout-parallel"].split(",").map(Number)) {
    process.stdout.write(`draining ${n} jobs × ${sleepMs} ms with maxParallel ${p}…\n`);
    fan.push(await fanOutDrain(redisUrl, n, p, sleepMs));
  }
  console.log(
    `\nFan-out drain on the Node server: ${n} jobs sleeping ${sleepMs} ms, concurrency 10 per tick, 5 s tick budget, one POST /tick to start`,
  );
  console.table(
    fan.map((r) => ({
      maxParallel: r.maxParallel,
      jobs: r.jobs,
      "drain s": r.seconds.toFixed(1),
      "jobs/s": Math.round(r.jobsPerSecond),
      "limit jobs/s": Math.round((r.maxParallel * 10 * 1000) / sleepMs),
      "max live ticks seen": r.maxLive,
    })),
  );
  const one = fan.find((r) => r.maxParallel === 1);
  for (const r of fan.filter((x) => x !== one)) {
    if (one)
      console.log(
        `maxParallel ${r.maxParallel} drains ${(one.seconds / r.seconds).toFixed(2)}× faster than maxParallel 1 (target ≥ 3× for 4)`,
      );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: serverlessOptions });
  const found = await findRedis();
  await runServerlessBench(values, found.url);
  await found.stop();
  process.exit(0);
}
