// `npm start`: the Node server with the example jobs. Finds Redis (see
// find-redis.ts); with no TICKQ_SECRET it makes a random one and prints it.
import { randomBytes } from "node:crypto";
import { exampleJobs, exampleQueues } from "../example-jobs.js";
import { findRedis } from "./find-redis.js";
import { stopOnSignals } from "./listen.js";
import { startServer } from "./server.js";

async function main() {
  let redis;
  try {
    redis = await findRedis();
  } catch (error) {
    console.error(`tickq: ${(error as Error).message}`);
    process.exit(1);
  }
  const insecure = process.env.TICKQ_INSECURE === "1";
  let secret = process.env.TICKQ_SECRET;
  if (!secret && !insecure) {
    secret = randomBytes(24).toString("base64url");
    console.log(`tickq: no TICKQ_SECRET set; using a random one for this run:\n  TICKQ_SECRET=${secret}`);
  }
  const server = await startServer({
    redisUrl: redis.url,
    jobs: exampleJobs,
    queues: exampleQueues,
    port: Number(process.env.PORT ?? 3000),
    secret,
    insecure,
    onTick: (r) => {
      if (r.fetched + r.resurrected + r.scheduled > 0) {
        console.log(`tick ${r.tickId}: ${r.succeeded} ok, ${r.retried} retried, ${r.dead} dead, ${r.resurrected} resurrected, ${r.roundTrips} round trips, ${r.durationMs} ms`);
      }
    },
  });
  console.log(`tickq: listening on ${server.url} (Redis: ${redis.url}, ${redis.source}); ticking every second`);
  console.log(`  curl -X POST -H "Authorization: Bearer $TICKQ_SECRET" ${server.url}/tick`);
  stopOnSignals(async () => {
    await server.close();
    await redis.stop();
  });
}

void main();
