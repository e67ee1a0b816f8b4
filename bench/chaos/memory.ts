// What the guard against late replays of begin (src/lua/lib/tick/begun-ids.lua)
// holds under a prefix, against its stated bound (docs/operate/redis-keys.md):
// the chaos table's "memory after the run" row, and the tick-burst tests.
import type { Redis } from "ioredis";

/** 65,536 fingerprints in 128 lists: 805,728 bytes by MEMORY USAGE on Redis 7, with a margin for Redis' versions. */
export const BEGUN_GUARD_BYTES = 820_000;

/** Bytes (MEMORY USAGE) of the guard's lists under `prefix`. */
export async function beginGuardBytes(admin: Redis, prefix: string): Promise<number> {
  let total = 0;
  let cursor = "0";
  do {
    const [next, keys] = await admin.scan(
      cursor,
      "MATCH",
      `${prefix.replace(/[*?[\]\\]/g, "\\$&")}begun:*`,
      "COUNT",
      1000,
    );
    cursor = next;
    for (const key of keys) total += Number((await admin.memory("USAGE", key, "SAMPLES", "0")) ?? 0);
  } while (cursor !== "0");
  return total;
}
