import { TickqError } from "../errors.js";
import { scriptSha } from "./script-sha.js";
import type { LuaScript, RedisAdapter, RedisReply } from "./types.js";

/** Counts Redis round trips; a tick keeps one for its report. */
export interface RoundTrips {
  count: number;
}

/**
 * What one client has learnt of Redis' script cache. After a NOSCRIPT the
 * cache was flushed (a restarted Redis, SCRIPT FLUSH), so every script not
 * run since goes straight to EVAL — which caches it — instead of paying
 * EVALSHA, NOSCRIPT, EVAL: a tick on a cold Redis costs one extra round
 * trip, not one per script.
 */
export interface ScriptCache {
  flushed: boolean;
  runSince: Set<string>;
}

export function newScriptCache(): ScriptCache {
  return { flushed: false, runSince: new Set() };
}

/**
 * Runs a script: EVALSHA, and EVAL once if Redis answers NOSCRIPT. Never
 * SCRIPT LOAD: on HTTP Redis that would be an extra request at every cold
 * start.
 */
export async function runScript(
  redis: RedisAdapter,
  script: LuaScript,
  keys: string[],
  args: (string | number)[],
  trips: RoundTrips,
  timeoutMs: number,
  cache: ScriptCache = newScriptCache(),
): Promise<RedisReply> {
  const argv = args.map(String);
  const known = scriptSha(script);
  const sha = typeof known === "string" ? known : await known;
  if (!cache.flushed || cache.runSince.has(sha)) {
    trips.count++;
    try {
      return await withTimeout(redis.evalsha(sha, keys, argv), timeoutMs, script.name);
    } catch (error) {
      if (!isNoScript(error)) throw asRedisError(error, script);
      cache.flushed = true;
      cache.runSince.clear();
    }
  }
  trips.count++;
  try {
    const reply = await withTimeout(redis.eval(script.text, keys, argv), timeoutMs, script.name);
    cache.runSince.add(sha);
    return reply;
  } catch (error) {
    throw asRedisError(error, script);
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.includes("NOSCRIPT");
}

function asRedisError(error: unknown, script: LuaScript): TickqError {
  if (error instanceof TickqError) return error;
  const scriptName = script.name;
  const reason = withSourceLine(error instanceof Error ? error.message : String(error), script);
  if (reason.includes("OOM")) {
    return new TickqError(
      "REDIS_FULL",
      `Redis is full (used memory over maxmemory, policy noeviction): script ${scriptName} wrote nothing. Ticks still drain and free memory; raise maxmemory or slow enqueues. (${reason})`,
      { cause: error },
    );
  }
  return new TickqError("REDIS", `Redis call failed (script ${scriptName}): ${reason}`, { cause: error });
}

/** Redis names a script's line as `user_script:N`; the .lua file and line a reader can open go after it. */
function withSourceLine(reason: string, script: LuaScript): string {
  const line = /user_script:(\d+)/.exec(reason)?.[1];
  const source = line === undefined ? undefined : script.sourceOf?.(Number(line));
  return source ? `${reason} (${source})` : reason;
}

// One promise and one pair of reactions a call, not a race of two promises and a `finally` (three more
// promises and their closures a call: bench/client-instructions.ts). The first to settle wins, as in a race.
// A custom adapter's reply that is not a promise (a plain value, a thenable) is taken as the race took it.
function withTimeout<T>(reply: Promise<T>, ms: number, scriptName: string): Promise<T> {
  const promise = reply instanceof Promise ? reply : Promise.resolve(reply);
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new TickqError(
            "REDIS_TIMEOUT",
            `Redis did not answer within ${ms} ms (script ${scriptName}); is it reachable? Check that it runs at ` +
              "the address its client was given (REDIS_URL, UPSTASH_REDIS_REST_URL), or raise redisTimeoutMs if it is only slow",
          ),
        ),
      ms,
    );
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** Reads a reply that the script contract says is an array. */
export function asArray(reply: RedisReply, what: string): RedisReply[] {
  if (!Array.isArray(reply)) throw new TickqError("REDIS", `Unexpected reply from ${what}: ${JSON.stringify(reply)}`);
  return reply;
}

export function asNumber(reply: RedisReply | undefined): number {
  return typeof reply === "number" ? reply : Number(reply ?? 0);
}

/**
 * Runs scripts on `redis` under `prefix`, as a tickq's runtime does, for code that has an
 * adapter but no tickq (tickq/testing's clock): what runCall takes.
 */
export function prefixedRunner(redis: RedisAdapter, prefix: string, timeoutMs: number) {
  const cache = newScriptCache();
  return {
    run: (script: LuaScript, keys: string[], args: (string | number)[], trips: RoundTrips) =>
      runScript(redis, script, keys, [prefix, ...args], trips, timeoutMs, cache),
  };
}
