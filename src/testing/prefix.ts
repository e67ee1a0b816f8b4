// A test prefix's life in Redis: claimed at creation (refused when a deployment's keys are
// there), its virtual clock moved, and every key deleted at close. All through test_clock.lua.
import { TickqError } from "../errors.js";
import { runCall } from "../protocol/run.js";
import { test_clock } from "../protocol/test-clock.js";
import { prefixedRunner } from "../redis/adapter.js";
import type { RedisAdapter } from "../redis/types.js";

/** What test_clock.lua answered, and the prefix's (virtual) time then. */
export interface ClockReply {
  state: string;
  detail: string;
  nowMs: number;
}

const TIMEOUT_MS = 10_000;

/** Runs test_clock.lua on `prefix`: `claim`, `advance` (to `offsetMs`) or `clear`. */
export function clockCall(
  redis: RedisAdapter,
  prefix: string,
  op: "claim" | "advance" | "clear",
  offsetMs = 0,
): Promise<ClockReply> {
  return runCall(
    prefixedRunner(redis, prefix, TIMEOUT_MS),
    test_clock,
    { clock: `${prefix}testclock` },
    { op, offsetMs },
  );
}

/** Marks `prefix` as a test's, or throws when a deployment's keys live under it. */
export async function claimPrefix(redis: RedisAdapter, prefix: string): Promise<ClockReply> {
  const reply = await clockCall(redis, prefix, "claim");
  if (reply.state === "taken") {
    throw new TickqError(
      "BAD_OPTIONS",
      `createTestTickq: prefix ${JSON.stringify(prefix)} holds keys that are not a test's (such as ${JSON.stringify(reply.detail)}): ` +
        "a test tickq would move their clock and delete them at close. Leave `prefix` out (each test tickq then gets a fresh one), or name an unused prefix",
    );
  }
  return reply;
}

/** A fresh prefix with a hash tag, so the same test runs on one Redis and on a Cluster. */
export function freshPrefix(): string {
  return `tickq-test:{${globalThis.crypto.randomUUID().slice(0, 13)}}:`;
}
