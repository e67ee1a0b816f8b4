/**
 * The Node server (the app plus a tick every second), a local Upstash-compatible REST server, and finding a Redis to use.
 *
 * @module tickq/node
 */
export { startServer, type RunningServer, type ServerOptions } from "./server.js";
export { findRedis, startPrivate, type FoundRedis } from "./find-redis.js";
export { listen, stopOnSignals, type Listening } from "./listen.js";
export { startUpstashLocal, type UpstashLocalServer } from "../../../tools/upstash-local/server.js";
export { runRedisHttp, type RedisHttpOptions } from "../../../tools/upstash-local/run.js";
