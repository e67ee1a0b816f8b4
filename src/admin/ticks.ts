// tq.ticks(): the ticks in the registry with their leases, in one read
// (ticks.lua) — what the dashboard's ticks page shows. A tick whose lease
// is gone stays listed until the resurrector has taken its jobs back.
import type { Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import type { TickInfo } from "./types.js";

/** Ticks answered at most: a registry holds one entry per live (or unresurrected) tick. */
const MAX_TICKS = 1_000;

export async function listTicks(runtime: Runtime): Promise<TickInfo[]> {
  const { nowMs, ticks } = await runCall(runtime, protocol.ticks, { ticks: runtime.keys.ticks }, { limit: MAX_TICKS });
  const out: TickInfo[] = ticks.map((t) => ({
    id: t.id,
    startedAt: t.startedMs,
    leaseMs: t.leaseMs,
    // PTTL answers -2 for a missing key, -1 for one without expiry (never written so).
    leaseLeftMs: t.leaseLeftMs >= 0 ? t.leaseLeftMs : null,
    inflight: t.inflight,
    queues: t.queues.split(" ").filter(Boolean),
    seenAt: nowMs,
  }));
  return out.sort((a, b) => a.startedAt - b.startedAt);
}
