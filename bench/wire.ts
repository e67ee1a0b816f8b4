// Measuring what a queue costs Redis: INFO commandstats (counts the commands
// run inside scripts too), and a TCP proxy that counts the RESP commands a
// client sends on the wire (each is at most one round trip), counted in
// the TCP proxy the tests use.
import type { Redis } from "ioredis";
import { startProxy } from "../test/helpers/proxy.js";

/** The sum of one figure of every INFO commandstats line `line` matches (its first group). */
async function sumCommandstats(redis: Redis, line: RegExp): Promise<number> {
  const info = await redis.info("commandstats");
  let total = 0;
  for (const match of info.matchAll(line)) total += Number(match[1]);
  return total;
}

/** Commands Redis ran so far, the ones scripts called included. */
export const commandsProcessed = (redis: Redis) => sumCommandstats(redis, /^cmdstat_[^:]+:calls=(\d+)/gm);

/** Microseconds Redis spent in scripts so far (EVAL and EVALSHA): CPU time, which the load of other processes moves less than a wall-clock rate. */
export const scriptUsec = (redis: Redis) => sumCommandstats(redis, /^cmdstat_(?:evalsha|eval):calls=\d+,usec=(\d+)/gm);

/** What Redis has spent so far: CPU (user + system) and the calls of each command, scripts' own included. */
export interface RedisUsage {
  cpuUsec: number;
  byCommand: Record<string, number>;
}

/** Reads {@link RedisUsage} with two INFO calls (cpu, then commandstats). */
export async function redisUsage(redis: Redis): Promise<RedisUsage> {
  const cpu = await redis.info("cpu");
  const seconds = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(cpu)?.[1] ?? 0);
  const byCommand: Record<string, number> = {};
  for (const m of (await redis.info("commandstats")).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    byCommand[m[1]!] = Number(m[2]);
  return { cpuUsec: (seconds("used_cpu_user") + seconds("used_cpu_sys")) * 1e6, byCommand };
}

/**
 * The calls of each command between two readings, less the two INFO calls of the readings
 * themselves that fall between them (the first's commandstats, the second's cpu); a script's own
 * INFO calls are still counted.
 */
export function commandsBetween(before: RedisUsage, after: RedisUsage): Record<string, number> {
  const calls: Record<string, number> = {};
  for (const [name, total] of Object.entries(after.byCommand)) {
    const n = total - (before.byCommand[name] ?? 0) - (name === "info" ? 2 : 0);
    if (n > 0) calls[name] = n;
  }
  return calls;
}

/** The sum of {@link commandsBetween}. */
export const commandCountBetween = (before: RedisUsage, after: RedisUsage): number =>
  Object.values(commandsBetween(before, after)).reduce((a, b) => a + b, 0);

/** Counts RESP commands (arrays) in a client→server byte stream. */
class RespCounter {
  commands = 0;
  private pending: Buffer = Buffer.alloc(0);
  private elementsLeft = 0; // bulk strings left in the current command
  private bulkLeft = -1; // bytes (with CRLF) left in the current bulk string

  push(chunk: Buffer) {
    const buf: Buffer = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    let at = 0;
    for (;;) {
      if (this.bulkLeft >= 0) {
        const take = Math.min(this.bulkLeft, buf.length - at);
        at += take;
        this.bulkLeft -= take;
        if (this.bulkLeft > 0) break;
        this.bulkLeft = -1;
        this.elementsLeft--;
        continue;
      }
      const eol = buf.indexOf("\r\n", at);
      if (eol < 0) break;
      const line = buf.toString("latin1", at, eol);
      at = eol + 2;
      if (line[0] === "*") {
        this.commands++;
        this.elementsLeft = Number(line.slice(1));
      } else if (line[0] === "$") {
        this.bulkLeft = Number(line.slice(1)) + 2;
      } else if (this.elementsLeft === 0 && line.length > 0) {
        this.commands++; // inline command
      }
    }
    this.pending = buf.subarray(at);
  }
}

export interface WireCounter {
  url: string;
  commands(): number;
  close(): Promise<void>;
}

export async function wireCounter(redisUrl: string): Promise<WireCounter> {
  const counters: RespCounter[] = [];
  const proxy = await startProxy(redisUrl, () => {
    const counter = new RespCounter();
    counters.push(counter);
    return (chunk) => counter.push(chunk);
  });
  return {
    url: proxy.url,
    commands: () => counters.reduce((sum, c) => sum + c.commands, 0),
    close: proxy.cut,
  };
}
