// The seeds the replay tests share: jobs enqueued (token `e1`, each with a
// jid, so a text names one job), and ticks begun on them, each through the
// scripts as a tick sends them.
import { expect } from "vitest";
import * as protocol from "../../src/protocol/index.js";
import { beginKeys, beginNamed } from "./begin-args.js";
import type { Harness } from "./harness.js";
import type { ScriptCalls } from "./script-calls.js";
import { ENQUEUE_KEYS, enqueueArgs, stepArgs, tickKeys } from "./tick-calls.js";

/** Job `n` of a seed, before enqueue stamps its times into it. */
export const seededJob = (n: number) =>
  JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", retry: true });

/** Jobs 1..`count` enqueued in `default`; then each of `ticks` begun, in turn, with `batch` of them. */
export async function enqueuedAndBegun(
  call: ScriptCalls["call"],
  o: { count: number; ticks: string[]; leaseMs: number; batch: number },
): Promise<void> {
  const jobs = Array.from({ length: o.count }, (_, k) => ({ job: seededJob(k + 1) }));
  await call(protocol.enqueue, ENQUEUE_KEYS, enqueueArgs("t", jobs));
  for (const tick of o.ticks) {
    const options = { tick, leaseMs: o.leaseMs, batch: o.batch };
    await call(protocol.begin, beginKeys(options), beginNamed(options));
  }
}

/**
 * Jobs 0..39 enqueued; t1 begun with the first 10, one group at place 0 (lib/tick/fetch-jobs.lua).
 * Returns the 40 as stored (enqueue stamps them), oldest first: the texts an ack names.
 */
export async function fortyBegunAtPlaceZero(h: Harness, call: ScriptCalls["call"], leaseMs: number): Promise<string[]> {
  const jobs = Array.from({ length: 40 }, (_, n) => ({ job: seededJob(n) }));
  await call(protocol.enqueue, ENQUEUE_KEYS, enqueueArgs("e1", jobs));
  const all = (await h.redis.lrange(`${h.prefix}queue:default`, 0, -1)).reverse();
  const first = await call(
    protocol.begin,
    beginKeys({ tick: "t1", leaseMs }),
    beginNamed({ tick: "t1", leaseMs, batch: 10 }),
  );
  expect(first.fetched[0]!.place).toBe(0);
  return all;
}

/** A job without a jid: every copy is the same text, and an ack names a job by its text. */
export const jidlessText = JSON.stringify({ class: "x", args: [0], queue: "default", retry: true });

/** `copies` copies of jidlessText queued in `default`; t1 begun (call 1) with `batch` of them. */
export async function jidlessCopiesBegun(
  h: Harness,
  call: ScriptCalls["call"],
  o: { copies: number; leaseMs: number; batch: number },
): Promise<void> {
  await h.redis.sadd(`${h.prefix}queues`, "default");
  await h.redis.rpush(`${h.prefix}queue:default`, ...Array.from({ length: o.copies }, () => jidlessText));
  const options = { tick: "t1", leaseMs: o.leaseMs, batch: o.batch };
  await call(protocol.begin, beginKeys(options), beginNamed(options));
}

/** t1's step 2a runs at Redis (fetching a copy), then given_up (call 4) asks after 2a and 3b: its reply. */
export async function stepRanThenAsked(call: ScriptCalls["call"], leaseMs: number) {
  await call(protocol.step, tickKeys("t1"), stepArgs({ tick: "t1", leaseMs, call: "2a", batch: 1 }));
  return call(protocol.given_up, tickKeys("t1"), { tickId: "t1", call: "4", steps: ["2a", "3b"] });
}
