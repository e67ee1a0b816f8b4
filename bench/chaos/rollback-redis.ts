// A Redis that can be rolled back the way a crash under `appendonly yes,
// appendfsync everysec` rolls it back. Redis writes each command to its AOF
// before it answers, and fsyncs the file once a second: a crash of the
// machine keeps on disk what was fsynced, so it forgets up to about the last
// second of acknowledged writes (https://redis.io/docs/latest/operate/oss_and_stack/management/persistence/).
// A SIGKILL of the process alone loses nothing (the kernel still holds the
// bytes), so rollback() does what the crash would have done: it SIGKILLs
// Redis, cuts the AOF back to the size it had at a moment up to `lossMs`
// before the kill (sampled every SAMPLE_MS: every reply sent before a sample
// was taken is in the bytes it counts), and starts Redis again from it. A cut
// inside a command or a MULTI block (a script's effects) is dropped whole by
// Redis' `aof-load-truncated`, so what comes back is a prefix of what was
// acknowledged: the state Redis had at that moment, or a little later.
import { readdir, stat, truncate } from "node:fs/promises";
import { join } from "node:path";
import { type AppendFsync, startPrivateRedis, type PrivateRedis } from "./private-redis.js";
import { sleep } from "./rng.js";

const SAMPLE_MS = 20;
/** Samples kept: a little over the longest loss asked. */
const KEEP_MS = 3_000;

/** One rollback: when Redis died, the moment whose AOF size it came back with, and the bytes cut. */
export interface Rollback {
  /**
   * Taken just before the SIGKILL, in the same turn of the event loop: a request sent after it never reached
   * the Redis that died. (Taken once the exit was seen, it came after replies that Redis sent before it died:
   * over HTTP such a reply reaches its sender a turn later still.)
   */
  killedAt: number;
  /** Every write acknowledged before this moment (Date.now()) survived the rollback. */
  keptUpTo: number;
  bytesCut: number;
  /** From the kill until Redis answered again. */
  downMs?: number;
}

export interface RollbackRedis {
  redis: PrivateRedis;
  /** SIGKILL, the AOF cut back to a moment at most `lossMs` before the kill, restart; resolves once Redis answers. */
  rollback(lossMs: number): Promise<Rollback>;
  /** The AOF's size now: with `appendfsync always`, every write answered before the call is in it. */
  aofSize(): Promise<number>;
  /** SIGKILL, the AOF cut back to `size` (an `aofSize()` taken before), restart: a rollback to that moment exactly. */
  rollbackTo(size: number): Promise<Rollback>;
  stop(): Promise<void>;
}

/** The one growing AOF file of a Redis 7 whose rewrites are off (`appendonlydir/*.incr.aof`). */
async function incrFile(dir: string): Promise<string> {
  const folder = join(dir, "appendonlydir");
  const names = (await readdir(folder)).filter((name) => name.endsWith(".incr.aof")).sort();
  if (names.length !== 1)
    throw new Error(`expected one incr AOF file in ${folder}, found ${names.join(", ") || "none"}`);
  return join(folder, names[0]!);
}

/**
 * `appendfsync` defaults to everysec (what `rollback(lossMs)` models). A test that cuts back to an
 * `aofSize()` asks for `always`: under everysec a busy disk lets Redis hold an AOF write back for up
 * to 2 s after it answered, so the size read could miss a write the test saw answered.
 */
export async function startRollbackRedis(options: { appendfsync?: AppendFsync } = {}): Promise<RollbackRedis> {
  const redis = await startPrivateRedis({ appendfsync: options.appendfsync ?? "everysec" });
  let samples: [at: number, size: number][] = [];
  let sampling = true;
  let stopped = false;
  const sampler = (async () => {
    while (!stopped) {
      if (sampling) {
        // The time is taken first: the size read after it holds at least every byte written before it.
        const at = Date.now();
        const size = await incrFile(redis.dir)
          .then((file) => stat(file))
          .then((s) => s.size)
          .catch(() => undefined);
        if (size !== undefined && sampling) samples.push([at, size]);
        samples = samples.filter(([t]) => t >= at - KEEP_MS);
      }
      await sleep(SAMPLE_MS);
    }
  })();

  return {
    redis,
    async rollback(lossMs) {
      let cut: Rollback | undefined;
      sampling = false;
      // restart() sends the SIGKILL before its first await: nothing runs between this moment and the kill.
      const killedAt = Date.now();
      await redis.restart(async () => {
        const file = await incrFile(redis.dir);
        const size = (await stat(file)).size;
        // The earliest sample at or after the moment asked: never more than lossMs lost.
        const kept = samples.find(([at]) => at >= killedAt - lossMs && at <= killedAt);
        if (kept && kept[1] < size) {
          await truncate(file, kept[1]);
          cut = { killedAt, keptUpTo: kept[0], bytesCut: size - kept[1] };
        } else cut = { killedAt, keptUpTo: killedAt, bytesCut: 0 };
      });
      samples = [];
      sampling = true;
      return { ...cut!, downMs: Date.now() - cut!.killedAt };
    },
    aofSize: async () => (await stat(await incrFile(redis.dir))).size,
    async rollbackTo(size) {
      let cut: Rollback | undefined;
      sampling = false;
      const killedAt = Date.now();
      await redis.restart(async () => {
        const file = await incrFile(redis.dir);
        const now = (await stat(file)).size;
        if (size < now) await truncate(file, size);
        cut = { killedAt, keptUpTo: killedAt, bytesCut: Math.max(0, now - size) };
      });
      samples = [];
      sampling = true;
      return { ...cut!, downMs: Date.now() - cut!.killedAt };
    },
    async stop() {
      stopped = true;
      await sampler;
      await redis.stop();
    },
  };
}
