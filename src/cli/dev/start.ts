// `npm start`: `tickq dev` (server.ts here) on the example jobs, with its settings from the env.
// Finds Redis (src/platforms/node/find-redis.ts); with no TICKQ_SECRET it makes a random one and prints it.
// Settings: PORT (default 3000), TICKQ_SECRET, TICKQ_READ_SECRET, TICKQ_METRICS_SECRET,
// CRON_SECRET, TICKQ_INSECURE=1 (no auth, local development only),
// TICKQ_MAX_PARALLEL (each enqueue kicks a tick, as in tickq dev), TICKQ_PUBLIC_URL, TICKQ_PREFIX, TICKQ_PARTITIONS,
// REDIS_URL, REDIS_CLUSTER=1 (REDIS_URL: a Redis Cluster's node, or several comma-separated).
// TICKQ_PREFIX, TICKQ_PARTITIONS and REDIS_CLUSTER are read as the CLI reads them, so `npx tickq` sees what this server runs.
// Every failure to start is one line and exit code 1.
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { lines } from "./lines.js";
import { loginLink } from "./login-link.js";
import { startDevServer } from "./server.js";
import { numberSetting } from "../../http/drain.js";
import { isOn, partitionsSetting } from "../../http/env.js";
import { findRedis } from "../../platforms/node/find-redis.js";
import { stopOnSignals } from "../../platforms/node/listen.js";
import { printable } from "../../printable.js";
import { redactUrl } from "../../redact.js";
import { redisUrls } from "../../redis/ioredis-url.js";
import { hashTagOf } from "../../tick/runtime.js";

/** TICKQ_PARTITIONS; unset on a cluster with an untagged prefix, "auto" (as the CLI reads it): the stored count, else the cluster's. */
function partitionsOf(env: NodeJS.ProcessEnv): number | "auto" | undefined {
  const set = partitionsSetting(env.TICKQ_PARTITIONS);
  if (set !== undefined || !isOn(env.REDIS_CLUSTER)) return set;
  return hashTagOf(env.TICKQ_PREFIX || "tickq:") === undefined ? "auto" : undefined;
}

// The example jobs, as a module: npm start is `tickq dev` on it, so an edit of it reloads.
const EXAMPLE_JOBS = fileURLToPath(new URL("./example-jobs.ts", import.meta.url));

async function main() {
  const redis = await findRedis();
  const insecure = isOn(process.env.TICKQ_INSECURE);
  let secret = process.env.TICKQ_SECRET;
  if (!secret && !insecure) {
    secret = randomBytes(24).toString("base64url");
    console.log(`tickq: no TICKQ_SECRET set; using a random one for this run:\n  TICKQ_SECRET=${secret}`);
  }
  const parallel = process.env.TICKQ_MAX_PARALLEL;
  const link = secret ? loginLink(secret) : undefined;
  const server = await startDevServer({
    module: EXAMPLE_JOBS,
    redisUrl: redis.url,
    prefix: process.env.TICKQ_PREFIX || undefined,
    port: numberSetting(process.env.PORT, 3000, "PORT"),
    secret,
    link,
    out: lines(),
    server: {
      partitions: partitionsOf(process.env),
      cluster: isOn(process.env.REDIS_CLUSTER),
      readSecret: process.env.TICKQ_READ_SECRET || undefined,
      metricsSecret: process.env.TICKQ_METRICS_SECRET || undefined,
      tickSecret: process.env.CRON_SECRET || undefined,
      insecure,
      publicUrl: process.env.TICKQ_PUBLIC_URL || undefined,
      maxParallel: parallel ? numberSetting(parallel, 1, "TICKQ_MAX_PARALLEL") : undefined,
    },
  }).catch(async (error: unknown) => {
    await redis.stop();
    throw error;
  });
  console.log(
    `tickq: listening on ${server.url} (Redis: ${redisUrls(redis.url).map(redactUrl).join(",")}, ${redis.source}); ticking every second and on each enqueue; edits of the example jobs reload them`,
  );
  console.log(
    `  enqueue: curl -X POST -H "Authorization: Bearer $TICKQ_SECRET" -H "content-type: application/json" -d '{"name":"sendWelcomeEmail","args":["ada@example.com"]}' ${server.url}/jobs`,
  );
  console.log(`  tick:    curl -X POST -H "Authorization: Bearer $TICKQ_SECRET" ${server.url}/tick`);
  const login = link
    ? `${server.url}${link.path} (a one-time login link; then TICKQ_SECRET)`
    : `${server.url}/dashboard`;
  console.log(`  dashboard: ${login}`);
  stopOnSignals(async () => {
    await server.close();
    await redis.stop();
  });
}

main().catch((error: unknown) => {
  console.error(`tickq: ${printable((error as Error).message)}`);
  process.exit(1);
});
