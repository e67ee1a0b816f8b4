// tickq over ioredis (Node, TCP). Replies come back as ioredis gives them:
// strings, integers, null and nested arrays — the shape every adapter must
// return.
/**
 * The Redis adapter for an ioredis client (Node, TCP; Redis, Sentinel or Cluster).
 *
 * @module tickq/adapters/ioredis
 */
import type { Redis, Cluster } from "ioredis";
import { slotOf } from "./cluster-slot.js";
import type { RedisAdapter, RedisReply } from "./types.js";

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
    // The same connection as the call: WAIT counts the replicas that hold its writes.
    wait: (replicas, timeoutMs, keys) => connectionOf(redis, keys).wait(replicas, timeoutMs),
  };
}

/**
 * On a cluster, the connection to the master that serves the keys' slot: the one that carried the call.
 * ioredis sends a keyless command such as WAIT to any node, whose answer says nothing of the call's writes.
 */
function connectionOf(redis: Redis | Cluster, keys: string[] | undefined): Redis | Cluster {
  if (!redis.isCluster) return redis;
  const cluster = redis as Cluster;
  const slot = keys?.[0] === undefined ? undefined : slotOf(keys[0]);
  const owner = slot === undefined ? undefined : cluster.slots[slot]?.[0];
  const node = cluster.nodes("master").find((n) => `${n.options.host}:${n.options.port}` === owner);
  if (!node) throw new Error(`no connection to the master of slot ${slot} for WAIT (the cluster's slots are moving)`);
  return node;
}
