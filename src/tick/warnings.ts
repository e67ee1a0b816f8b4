// Warnings from the heartbeat (lib/tick/record-heartbeat.lua): what stats() and GET
// /health report when jobs wait and nothing will run them — the cron
// trigger stopped firing, or jobs sit in a queue that no tick serves (a
// typo in `queues`, a queue added on one side of a deploy only).

/** How long without a tick (or without one serving a queue) before it is worth a warning. */
export const STALE_MS = 5 * 60_000;

export interface HeartbeatInput {
  nowMs: number;
  /** When a tick last began; null if none ever did on this prefix. */
  lastTickAt: number | null;
  /** Queue name → jobs waiting. */
  queues: Record<string, number>;
  /** Queue name → when a tick last served it. */
  served: Record<string, number>;
  paused: ReadonlySet<string>;
  /** Scheduled and retry jobs already due, waiting for a tick to move them. */
  due: number;
}

import { ownValue } from "../name-record.js";

const ago = (ms: number) => (ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`);
const at = (ms: number) => new Date(ms).toISOString();

export function heartbeatWarnings(input: HeartbeatInput): string[] {
  const { nowMs, lastTickAt, queues, served, paused, due } = input;
  const active = Object.entries(queues).filter(([name, size]) => size > 0 && !paused.has(name));
  const waiting = active.reduce((n, [, size]) => n + size, 0) + due;
  if (waiting === 0) return [];
  if (lastTickAt === null || nowMs - lastTickAt >= STALE_MS) {
    const since =
      lastTickAt === null
        ? "No tick has ever run"
        : `No tick has run for ${ago(nowMs - lastTickAt)} (last at ${at(lastTickAt)})`;
    return [
      `${since} while ${waiting} job(s) wait: is the cron trigger (or whatever calls tick(), POST /tick) still firing?`,
    ];
  }
  const warnings: string[] = [];
  for (const [name, size] of active) {
    const last = ownValue(served, name);
    if (last !== undefined && nowMs - last < STALE_MS) continue;
    const when = last === undefined ? "no tick has ever served it" : `no tick has served it for ${ago(nowMs - last)}`;
    warnings.push(`${size} job(s) wait in queue "${name}", but ${when}: add it to the \`queues\` your ticks serve.`);
  }
  return warnings;
}
