// An ordered id whose stored bytes are not UTF-8, as a writer other than tickq would leave it (tickq's own
// enqueue takes only well-formed ids): an id enqueued by tickq, then moved under the raw bytes.
import type { Redis } from "ioredis";

/** Moves the waiting ordered id `from` of `name` (its place in the ready set and its payloads) under the bytes `raw`. */
export async function moveUnderRawId(redis: Redis, prefix: string, name: string, from: string, raw: Buffer) {
  const ready = `${prefix}o:${name}:ready`;
  const score = await redis.zscore(ready, from);
  if (score === null) throw new Error(`ordered id ${from} of ${name} is not waiting`);
  await redis.zrem(ready, from);
  await redis.zadd(ready, score, raw);
  await redis.rename(`${prefix}o:${name}:p:${from}`, Buffer.concat([Buffer.from(`${prefix}o:${name}:p:`), raw]));
}
