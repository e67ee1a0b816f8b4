// tq.ticks(): the ticks in the registry with their leases, in one read
// (ticks.lua) — what the dashboard's ticks page shows. A tick whose lease
// is gone stays listed until the resurrector has taken its jobs back.
import { asArray, asNumber } from "../redis/adapter.js";
import type { Runtime } from "../tick/runtime.js";
import { scripts } from "../lua/index.js";
import type { TickInfo } from "./types.js";

/** Ticks answered at most: a registry holds one entry per live (or unresurrected) tick. */
const MAX_TICKS = 1_000;

export async function listTicks(runtime: Runtime): Promise<TickInfo[]> {
  const [now, flat] = asArray(await runtime.run(scripts.ticks, [runtime.keys.ticks], [MAX_TICKS], { count: 0 }), "ticks");
  const nowMs = asNumber(now);
  const entries = asArray(flat ?? [], "ticks");
  const out: TickInfo[] = [];
  for (let i = 0; i < entries.length; i += 6) {
    const left = asNumber(entries[i + 3]);
    out.push({
      id: String(entries[i]),
      startedAt: asNumber(entries[i + 1]),
      leaseMs: asNumber(entries[i + 2]),
      // PTTL answers -2 for a missing key, -1 for one without expiry (never written so).
      leaseLeftMs: left >= 0 ? left : null,
      inflight: asNumber(entries[i + 4]),
      queues: String(entries[i + 5]).split(" ").filter(Boolean),
      seenAt: nowMs,
    });
  }
  return out.sort((a, b) => a.startedAt - b.startedAt);
}
