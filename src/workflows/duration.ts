// Durations of sleeps and timeouts: ms, or "500ms" / "30s" / "15m" / "12h" / "3d".
import { TickqError } from "../errors.js";
import type { Duration } from "./types.js";

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The duration in whole ms; a negative, non-finite or unreadable one is a BAD_ARGS TickqError naming `what`. */
export function durationMs(duration: Duration, what: string): number {
  let ms: number | undefined;
  if (typeof duration === "number") ms = duration;
  else if (typeof duration === "string") {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(duration.trim());
    if (m) ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  }
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) {
    throw new TickqError(
      "BAD_ARGS",
      `${what}: a duration is ms or a number with ms, s, m, h or d ("30s", "3d"), got ${JSON.stringify(duration)}`,
    );
  }
  return Math.round(ms);
}
