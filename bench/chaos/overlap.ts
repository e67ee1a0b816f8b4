// An overlap detector for exclusive work (ordered ids, unique keys, per-key
// concurrency slots), shared by the chaos ledgers and the multi-process
// tests. Each run marks its key on entry (a member "PID:RUN" of the set
// live:KEY, on a Redis that is never faulted) and clears the mark on exit.
// On entry it counts the other marks whose process is still alive: a mark
// of a SIGKILLed process is no live holder. More than `limit - 1` others is
// an overlap, recorded in words (overlaps); the most holders ever seen of a
// key are kept too (peak), so a test can check a limit was reached, not
// only kept. Free of vitest, so child processes use it as well.
import type { Redis } from "ioredis";

export interface OverlapDetector {
  /** Marks a run of `key`; returns its token for leave(). `limit`: holders allowed at once (default 1). */
  enter(key: string, limit?: number): Promise<string>;
  leave(key: string, token: string): Promise<void>;
  /** The overlaps seen so far, and the most live holders seen per key. */
  read(): Promise<{ overlaps: string[]; peak: Map<string, number> }>;
}

/** True if the process is alive (EPERM: alive, not ours). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

// Keeps the largest count per field.
const PEAK = `local last = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if tonumber(ARGV[2]) > last then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 0`;

export function overlapDetector(redis: Redis, prefix: string): OverlapDetector {
  const key = (name: string) => `${prefix}${name}`;
  let runs = 0;
  return {
    async enter(k, limit = 1) {
      const token = `${process.pid}:${++runs}`;
      const live = key(`live:${k}`);
      const reply = await redis.multi().sadd(live, token).expire(live, 86_400).smembers(live).exec();
      const members = (reply?.[2]?.[1] ?? []) as string[];
      const others = members.filter((m) => m !== token && alive(Number(m.split(":")[0])));
      await redis.eval(PEAK, 1, key("peak"), k, String(others.length + 1));
      if (others.length >= limit)
        await redis.rpush(key("overlaps"), `${k}: ${token} entered while ${others.join(",")} held it (limit ${limit})`);
      return token;
    },
    leave: async (k, token) => void (await redis.srem(key(`live:${k}`), token)),
    async read() {
      const [overlaps, peak] = await Promise.all([redis.lrange(key("overlaps"), 0, -1), redis.hgetall(key("peak"))]);
      return { overlaps, peak: new Map(Object.entries(peak).map(([k, v]) => [k, Number(v)])) };
    },
  };
}
