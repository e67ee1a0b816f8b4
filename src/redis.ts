import { TickqError } from "./errors.js";
import type { LuaScript, RedisAdapter, RedisReply } from "./types.js";

/** Counts Redis round trips; a tick keeps one for its report. */
export interface RoundTrips {
  count: number;
}

/**
 * Runs a script: EVALSHA, and EVAL once if Redis answers NOSCRIPT (a cold
 * Redis, or after SCRIPT FLUSH). Never SCRIPT LOAD: on HTTP Redis that would
 * be an extra request at every cold start.
 */
export async function runScript(
  redis: RedisAdapter,
  script: LuaScript,
  keys: string[],
  args: (string | number)[],
  trips: RoundTrips,
  timeoutMs: number,
): Promise<RedisReply> {
  const argv = args.map(String);
  trips.count++;
  try {
    return await withTimeout(redis.evalsha(script.sha, keys, argv), timeoutMs, script.name);
  } catch (error) {
    if (!isNoScript(error)) throw asRedisError(error, script.name);
  }
  trips.count++;
  try {
    return await withTimeout(redis.eval(script.text, keys, argv), timeoutMs, script.name);
  } catch (error) {
    throw asRedisError(error, script.name);
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.includes("NOSCRIPT");
}

function asRedisError(error: unknown, scriptName: string): TickqError {
  if (error instanceof TickqError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new TickqError("REDIS", `Redis call failed (script ${scriptName}): ${reason}`, { cause: error });
}

function withTimeout<T>(promise: Promise<T>, ms: number, scriptName: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new TickqError("REDIS_TIMEOUT", `Redis did not answer within ${ms} ms (script ${scriptName}); is it reachable?`)),
      ms,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Reads a reply that the script contract says is an array. */
export function asArray(reply: RedisReply, what: string): RedisReply[] {
  if (!Array.isArray(reply)) throw new TickqError("REDIS", `Unexpected reply from ${what}: ${JSON.stringify(reply)}`);
  return reply;
}

export function asNumber(reply: RedisReply | undefined): number {
  return typeof reply === "number" ? reply : Number(reply ?? 0);
}
