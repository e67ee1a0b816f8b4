// Adapters that cut a migration (migratePartitions) at a chosen call, as a
// lost connection would: the tests run it again and check nothing is lost or
// doubled.
import type { RedisAdapter } from "../../src/redis/types.js";

/** The finish call (partition_move_finish.lua): the count key alone, the mark it replaces as its first argument. */
function isFinish(keys: string[], args: string[]): boolean {
  return keys.length === 1 && keys[0]!.endsWith("partitions") && /^\d+>\d+ /.test(args[1] ?? "");
}

/** An adapter whose call storing the new count never reaches Redis: the move is done, the mark stays. */
export function cutBeforeFinish(adapter: RedisAdapter): RedisAdapter {
  return {
    ...adapter,
    cluster: adapter.cluster,
    evalsha: (sha, keys, args) =>
      isFinish(keys, args) ? Promise.reject(new Error("cut before finish")) : adapter.evalsha(sha, keys, args),
    eval: (script, keys, args) =>
      isFinish(keys, args) ? Promise.reject(new Error("cut before finish")) : adapter.eval(script, keys, args),
  };
}
