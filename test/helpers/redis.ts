// Per-test Redis access: a unique key prefix for every test, and cleanup of
// every key under it, so tests never assume an empty database.
import { Redis } from "ioredis";
import { inject } from "vitest";
import { newJid } from "../../src/job/codec.js";

export function redisUrl(): string {
  return inject("redisUrl");
}

/** A direct connection for assertions and setup, never the code under test. */
export function directRedis(): Redis {
  return new Redis(redisUrl());
}

export function uniquePrefix(label: string): string {
  return `tickq-test:${label}:${newJid().slice(0, 8)}:`;
}

export async function deleteUnder(redis: Redis, prefix: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== "0");
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
