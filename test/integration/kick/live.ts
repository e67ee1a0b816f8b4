// Live ticks as the registry says: registered, with a lease key.
import type { Redis } from "ioredis";

export async function liveTicks(redis: Redis, prefix: string): Promise<number> {
  const ids = await redis.hkeys(`${prefix}ticks`);
  if (ids.length === 0) return 0;
  const leases = await Promise.all(ids.map((id) => redis.exists(`${prefix}tick:${id}`)));
  return leases.filter((n) => n === 1).length;
}

/** Samples live ticks every `everyMs` until stopped; returns the highest count seen. */
export function sampleLive(redis: Redis, prefix: string, everyMs = 5): { stop(): Promise<number> } {
  let max = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      max = Math.max(max, await liveTicks(redis, prefix));
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return max;
    },
  };
}
