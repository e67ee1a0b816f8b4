// npm run redis-http [-- --port 8079 --token T --latency-ms 20]
// An Upstash-compatible REST endpoint on this machine, for developing a
// Worker locally. Redis: REDIS_URL, else 127.0.0.1:6379, else a private one.
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { findRedis } from "../node/find-redis.js";
import { stopOnSignals } from "../node/listen.js";
import { startUpstashLocal } from "./server.js";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: process.env.PORT ?? "8079" },
    token: { type: "string", default: process.env.UPSTASH_LOCAL_TOKEN },
    "latency-ms": { type: "string", default: "0" },
  },
});

const redis = await findRedis().catch((error: Error) => {
  console.error(`redis-http: ${error.message}`);
  process.exit(1);
});
const token = values.token ?? randomBytes(18).toString("base64url");
const server = await startUpstashLocal({ redisUrl: redis.url, token, port: Number(values.port), latencyMs: Number(values["latency-ms"]) });
console.log(`Upstash-compatible REST server over ${redis.url}${Number(values["latency-ms"]) ? ` (+${values["latency-ms"]} ms a request)` : ""}`);
console.log(`  UPSTASH_REDIS_REST_URL=${server.url}`);
console.log(`  UPSTASH_REDIS_REST_TOKEN=${token}`);
stopOnSignals(async () => {
  await server.close();
  await redis.stop();
});
