// Duplicates of a key waiting in its queue, not parked. An enqueue parks a
// while-executing job whose key has a job queued for its slot (flow:sent,
// lib/flow/slots.lua F.sent_waits), so a burst seldom reaches the queue
// through enqueue. It does through other doors: jobs that come due from
// the schedule, or that an older tickq queued. The fetch's parking is
// tested on that state.
import type { Harness } from "./harness.js";

/**
 * Enqueues `jobs` one at a time, each as though no job of its key waited in
 * a queue: one that enqueue parked is moved to the tail of its queue, as
 * the newest, and no longer counted as waiting. Their jids, in order.
 */
export async function enqueueQueued<J>(
  h: Harness,
  tq: { enqueueBulk(jobs: J[]): Promise<string[]> },
  jobs: NoInfer<J>[],
): Promise<string[]> {
  const jids: string[] = [];
  for (const job of jobs) {
    jids.push(...(await tq.enqueueBulk([job])));
    for (const park of await h.redis.keys(`${h.prefix}flow:park:*`)) {
      const parked = await h.redis.lpop(park);
      if (!parked) continue;
      const { queue, class: name } = JSON.parse(parked) as { queue: string; class: string };
      await h.redis.lpush(`${h.prefix}queue:${queue}`, parked);
      await h.redis.hincrby(`${h.prefix}flow:waiting`, name, -1);
      if ((await h.redis.llen(park)) === 0)
        await h.redis.srem(`${h.prefix}flow:parked`, park.slice(`${h.prefix}flow:park:`.length));
    }
    await h.redis.del(`${h.prefix}flow:sent`);
  }
  return jids;
}

/** Pushes `n` copies of the newest job of `queue`, each with a jid of its own, behind it: a burst that came in by another door. */
export async function copyQueued(h: Harness, queue: string, n: number): Promise<void> {
  const list = `${h.prefix}queue:${queue}`;
  const [newest] = await h.redis.lrange(list, 0, 0);
  if (!newest) throw new Error(`copyQueued: ${queue} is empty`);
  const jid = JSON.parse(newest).jid as string;
  for (let from = 0; from < n; from += 1_000) {
    const copies = Array.from({ length: Math.min(1_000, n - from) }, (_, i) =>
      newest.replace(`"jid":"${jid}"`, `"jid":"${jid}-${from + i}"`),
    );
    await h.redis.lpush(list, ...copies);
  }
}
