// The `durability` option: after each call that may write, Redis WAIT on the
// same connection, so a call returns only once that many replicas hold its
// writes. Asynchronous replication otherwise loses the last writes in a
// failover (an acknowledged enqueue, an ack): a call that fewer replicas
// confirm in time fails with NOT_REPLICATED, and its caller resends it (a
// tick's numbered calls and enqueue's call tokens make a resend harmless).
import { TickqError } from "../errors.js";
import { numberOption } from "../options.js";
import type { RoundTrips } from "../redis/adapter.js";
import type { LuaScript, RedisAdapter } from "../redis/types.js";

/** The `durability` option: how many replicas must hold each write (Redis WAIT). */
export interface DurabilityOptions {
  /** Replicas that must acknowledge each write; at least 1. */
  replicas: number;
  /** How long to wait for them, in ms; default 1,000. */
  timeoutMs?: number;
}

export interface Durability {
  replicas: number;
  timeoutMs: number;
}

/** Scripts that only read: nothing of theirs to replicate. */
const READS = new Set(["history", "inflight", "locate", "page", "queues", "recurring_list", "stats", "ticks"]);

export function durabilityOf(options: DurabilityOptions | undefined, redis: RedisAdapter): Durability | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== "object" || options === null)
    throw new TickqError("BAD_OPTIONS", "durability must be { replicas, timeoutMs? }");
  const replicas = numberOption(options.replicas, 0, "durability.replicas", { min: 1, integer: true });
  const timeoutMs = numberOption(options.timeoutMs, 1_000, "durability.timeoutMs", { min: 1, integer: true });
  if (typeof redis.wait !== "function") {
    throw new TickqError(
      "BAD_OPTIONS",
      "durability needs an adapter that can run Redis WAIT (ioredisAdapter, or nodeRedisAdapter over one Redis); over HTTP (Upstash) replication is the provider's: see docs/running-redis.md",
    );
  }
  return { replicas, timeoutMs };
}

/** Waits until `durability.replicas` replicas hold what `script` wrote; NOT_REPLICATED if they do not in time. */
export async function confirmReplicated(
  redis: RedisAdapter,
  durability: Durability,
  script: LuaScript,
  trips: RoundTrips,
  keys: string[],
): Promise<void> {
  if (READS.has(script.name)) return;
  trips.count++;
  let acked: number;
  try {
    acked = await redis.wait!(durability.replicas, durability.timeoutMs, keys);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TickqError("REDIS", `Redis WAIT after script ${script.name} failed: ${reason}`, { cause: error });
  }
  if (acked < durability.replicas) {
    throw new TickqError(
      "NOT_REPLICATED",
      `script ${script.name}: ${acked} of ${durability.replicas} replica(s) confirmed its writes within ${durability.timeoutMs} ms; they may be lost in a failover, so the call failed: retry it`,
    );
  }
}
