// Everything a tick and the client share, resolved once from the options.
import { TickqError } from "./errors.js";
import { keysFor, type Keys } from "./keys.js";
import { planQueues, type QueuePlan } from "./queues.js";
import { newScriptCache, runScript, type RoundTrips } from "./redis.js";
import type { JobDefinition, JobLogger, JobRegistry, LuaScript, Middleware, RedisAdapter, RedisReply, TickqOptions } from "./types.js";

export interface Runtime {
  redis: RedisAdapter;
  prefix: string;
  keys: Keys;
  jobs: JobRegistry;
  plan: QueuePlan;
  maxRetries: number;
  maxResurrections: number;
  deadMaxJobs: number;
  deadMaxAgeSeconds: number;
  redisTimeoutMs: number;
  logger: JobLogger;
  middleware: Middleware[];
  /** Redis' clock minus ours, learnt from every script that reads TIME. */
  clockOffsetMs: number;
  run(script: LuaScript, keys: string[], args: (string | number)[], trips: RoundTrips): Promise<RedisReply>;
}

export function createRuntime(options: TickqOptions): Runtime {
  if (!options || typeof options.redis?.evalsha !== "function") {
    throw new TickqError("BAD_OPTIONS", "createTickq needs `redis`: an adapter such as ioredisAdapter(new Redis()) or upstashAdapter(redis)");
  }
  if (typeof options.jobs !== "object" || options.jobs === null) {
    throw new TickqError("BAD_OPTIONS", "createTickq needs `jobs`: an object of job name → handler");
  }
  const prefix = options.prefix ?? "tickq:";
  const scriptCache = newScriptCache();
  const runtime: Runtime = {
    redis: options.redis,
    prefix,
    keys: keysFor(prefix),
    jobs: options.jobs,
    plan: planQueues(options.queues ?? ["default"]),
    maxRetries: positive(options.maxRetries, 25, "maxRetries"),
    maxResurrections: positive(options.maxResurrections, 3, "maxResurrections"),
    deadMaxJobs: positive(options.deadMaxJobs, 10_000, "deadMaxJobs"),
    deadMaxAgeSeconds: positive(options.deadMaxAgeSeconds, 180 * 24 * 3600, "deadMaxAgeSeconds"),
    redisTimeoutMs: positive(options.redisTimeoutMs, 10_000, "redisTimeoutMs"),
    logger: options.logger ?? console,
    middleware: [],
    clockOffsetMs: 0,
    run: (script, keys, args, trips) => runScript(runtime.redis, script, keys, [prefix, ...args], trips, runtime.redisTimeoutMs, scriptCache),
  };
  return runtime;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new TickqError("BAD_OPTIONS", `${name} must be a number ≥ 0, got ${value}`);
  return value;
}

export function definitionOf(runtime: Runtime, name: string): JobDefinition<never> | undefined {
  const entry = Object.hasOwn(runtime.jobs, name) ? runtime.jobs[name] : undefined;
  if (entry === undefined) return undefined;
  return typeof entry === "function" ? { perform: entry } : entry;
}

export function redisNowSec(runtime: Runtime): number {
  return (Date.now() + runtime.clockOffsetMs) / 1000;
}
