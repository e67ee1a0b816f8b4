// Everything under a prefix, as plain data: type and contents of every key
// (TTLs left out). Two snapshots are equal when a call changed nothing.
import type { Redis } from "ioredis";

export type Snapshot = Record<string, unknown>;

export async function snapshot(redis: Redis, prefix: string): Promise<Snapshot> {
  const out: Snapshot = {};
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      const name = key.slice(prefix.length);
      if (type === "string") out[name] = await redis.get(key);
      else if (type === "list") out[name] = await redis.lrange(key, 0, -1);
      else if (type === "set") out[name] = (await redis.smembers(key)).sort();
      else if (type === "zset") out[name] = await redis.zrange(key, "0", "-1", "WITHSCORES");
      else if (type === "hash") out[name] = await redis.hgetall(key);
    }
  } while (cursor !== "0");
  return out;
}
