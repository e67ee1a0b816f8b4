// What every chaos phase does at its end: wait until tickq holds no work,
// then delete what the phase wrote under its prefix.
import type { Redis } from "ioredis";
import type { Stats } from "../../src/types.js";
import { sleep } from "./rng.js";

/** Waits until tickq holds no work (nothing queued, scheduled, in retry, in process, parked on a busy key or ordered), twice a lease apart. */
export async function settle(tq: { stats(): Promise<Stats> }, timeoutMs: number, leaseMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let idleSince: number | undefined;
  while (Date.now() < deadline) {
    const s = await tq.stats().catch(() => undefined);
    const work = s ? workLeft(s) : 1;
    if (work > 0) idleSince = undefined;
    else if (idleSince === undefined) idleSince = Date.now();
    else if (Date.now() - idleSince >= leaseMs) return true;
    await sleep(200);
  }
  return false;
}

function workLeft(s: Stats): number {
  const ordered = Object.values(s.ordered).reduce((a, x) => a + x.waiting + x.running, 0);
  const parked = Object.values(s.flow).reduce((a, f) => a + f.waiting, 0);
  return Object.values(s.queues).reduce((a, b) => a + b, 0) + s.scheduled + s.retry + s.inflight + parked + ordered;
}

export async function deleteUnder(redis: Redis, prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}*`).catch(() => [] as string[]);
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
}
