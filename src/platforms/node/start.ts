// `npm start`: the Node server with the example jobs. Finds Redis (see
// find-redis.ts); with no TICKQ_SECRET it makes a random one and prints it.
// Settings: PORT (default 3000), TICKQ_SECRET, TICKQ_READ_SECRET, TICKQ_METRICS_SECRET,
// CRON_SECRET, TICKQ_INSECURE=1 (no auth, local development only),
// TICKQ_KICK=1, TICKQ_MAX_PARALLEL, TICKQ_PUBLIC_URL, TICKQ_PREFIX, TICKQ_PARTITIONS,
// REDIS_URL, REDIS_CLUSTER=1 (REDIS_URL: a Redis Cluster's node, or several comma-separated).
// TICKQ_PREFIX, TICKQ_PARTITIONS and REDIS_CLUSTER are read as the CLI reads them, so `npx tickq` sees what this server runs.
// Every failure to start is one line and exit code 1.
import { randomBytes } from "node:crypto";
import { dashboard } from "../../dashboard/index.js";
import { numberSetting } from "../../http/drain.js";
import { isOn, partitionsSetting } from "../../http/env.js";
import { exampleJobs, exampleQueues } from "./example-jobs.js";
import { findRedis } from "./find-redis.js";
import { stopOnSignals } from "./listen.js";
import { printable } from "../../printable.js";
import { redactUrl } from "../../redact.js";
import { redisUrls } from "../../redis/ioredis-url.js";
import { hashTagOf } from "../../tick/runtime.js";
import { startServer } from "./server.js";

/** TICKQ_PARTITIONS; unset on a cluster with an untagged prefix, "auto" (as the CLI reads it): the stored count, else the cluster's. */
function partitionsOf(env: NodeJS.ProcessEnv): number | "auto" | undefined {
  const set = partitionsSetting(env.TICKQ_PARTITIONS);
  if (set !== undefined || !isOn(env.REDIS_CLUSTER)) return set;
  return hashTagOf(env.TICKQ_PREFIX || "tickq:") === undefined ? "auto" : undefined;
}

async function main() {
  const redis = await findRedis();
  const insecure = isOn(process.env.TICKQ_INSECURE);
  let secret = process.env.TICKQ_SECRET;
  if (!secret && !insecure) {
    secret = randomBytes(24).toString("base64url");
    console.log(`tickq: no TICKQ_SECRET set; using a random one for this run:\n  TICKQ_SECRET=${secret}`);
  }
  const parallel = process.env.TICKQ_MAX_PARALLEL;
  const server = await startServer({
    redisUrl: redis.url,
    jobs: exampleJobs,
    queues: exampleQueues,
    prefix: process.env.TICKQ_PREFIX || undefined,
    partitions: partitionsOf(process.env),
    cluster: isOn(process.env.REDIS_CLUSTER),
    port: numberSetting(process.env.PORT, 3000, "PORT"),
    secret,
    readSecret: process.env.TICKQ_READ_SECRET || undefined,
    metricsSecret: process.env.TICKQ_METRICS_SECRET || undefined,
    tickSecret: process.env.CRON_SECRET || undefined,
    insecure,
    publicUrl: process.env.TICKQ_PUBLIC_URL || undefined,
    kick: isOn(process.env.TICKQ_KICK),
    maxParallel: parallel ? numberSetting(parallel, 1, "TICKQ_MAX_PARALLEL") : undefined,
    dashboard: dashboard(),
    onTick: (r) => {
      if (r.fetched + r.resurrected + r.scheduled > 0) {
        console.log(
          `tick ${r.tickId}: ${r.succeeded} ok, ${r.retried} retried, ${r.dead} dead, ${r.resurrected} resurrected, ${r.roundTrips} round trips, ${r.durationMs} ms`,
        );
      }
    },
  }).catch(async (error: unknown) => {
    await redis.stop();
    throw error;
  });
  console.log(
    `tickq: listening on ${server.url} (Redis: ${redisUrls(redis.url).map(redactUrl).join(",")}, ${redis.source}); ticking every second`,
  );
  console.log(
    `  enqueue: curl -X POST -H "Authorization: Bearer $TICKQ_SECRET" -H "content-type: application/json" -d '{"name":"sendWelcomeEmail","args":["ada@example.com"]}' ${server.url}/jobs`,
  );
  console.log(`  tick:    curl -X POST -H "Authorization: Bearer $TICKQ_SECRET" ${server.url}/tick`);
  console.log(`  dashboard: ${server.url}/dashboard (log in with TICKQ_SECRET)`);
  stopOnSignals(async () => {
    await server.close();
    await redis.stop();
  });
}

main().catch((error: unknown) => {
  console.error(`tickq: ${printable((error as Error).message)}`);
  process.exit(1);
});
