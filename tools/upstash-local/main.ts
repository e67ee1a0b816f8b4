// npm run redis-http [-- --port 8079 --token T --insecure-token --any-script --latency-ms 20]
// An Upstash-compatible REST endpoint on this machine, for developing a
// Worker locally (the same as `tickq redis-http`).
import { parseArgs } from "node:util";
import { runRedisHttp } from "./run.js";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: process.env.PORT ?? "8079" },
    token: { type: "string", default: process.env.UPSTASH_LOCAL_TOKEN },
    "insecure-token": { type: "boolean", default: false },
    "any-script": { type: "boolean", default: false },
    "latency-ms": { type: "string", default: "0" },
  },
});

await runRedisHttp({
  port: Number(values.port),
  token: values.token,
  insecureToken: values["insecure-token"],
  anyScript: values["any-script"],
  latencyMs: Number(values["latency-ms"]),
}).catch((error: Error) => {
  console.error(`redis-http: ${error.message}`);
  process.exit(1);
});
