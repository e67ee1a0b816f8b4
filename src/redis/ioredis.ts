// tickq over ioredis (Node, TCP). Replies come back as ioredis gives them:
// strings, integers, null and nested arrays — the shape every adapter must
// return.
/**
 * The Redis adapter for an ioredis client (Node, TCP; Redis, Sentinel or Cluster).
 *
 * @module tickq/adapters/ioredis
 */
import type { Redis, Cluster } from "ioredis";
import type { RedisAdapter, RedisReply } from "../types.js";

/**
 * The adapter over an ioredis client (a Redis, Sentinel or Cluster connection), for Node.
 * @example
 * const tq = createTickq({ redis: ioredisAdapter(new Redis(process.env.REDIS_URL)), jobs });
 * // On a Redis Cluster, a prefix with a hash tag keeps tickq's keys in one slot:
 * const onCluster = createTickq({ redis: ioredisAdapter(new Cluster(nodes)), prefix: "{tickq}:", jobs });
 */
export function ioredisAdapter(redis: Redis | Cluster): RedisAdapter {
  return {
    cluster: redis.isCluster,
    evalsha: (sha, keys, args) => redis.evalsha(sha, keys.length, ...keys, ...args) as Promise<RedisReply>,
    eval: (script, keys, args) => redis.eval(script, keys.length, ...keys, ...args) as Promise<RedisReply>,
    // The same connection as the calls before it: WAIT counts the replicas that hold their writes.
    wait: (replicas, timeoutMs) => redis.wait(replicas, timeoutMs),
  };
}
