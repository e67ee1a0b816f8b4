// Before a partitioned tickq's first call: the partition count stored in
// Redis must be its own (partitions.lua stores it the first time), and on a
// single Redis no job may wait in the one-partition layout under the same
// prefix (it would never run: migratePartitions moves it). Refusals name the
// fix. With `partitions: 1` nothing here runs, so a single Redis keeps
// today's cost.
import { TickqError } from "../errors.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import type { Runtime } from "../tick/runtime.js";
import type { Stats } from "../types.js";

/** The key that holds the partition count: under the user's prefix, outside every partition. */
export const metaKey = (prefix: string) => `${prefix}partitions`;

export async function checkStoredCount(runtime: Runtime, prefix: string, count: number): Promise<void> {
  const stored = await runCall(runtime, protocol.partitions, { meta: metaKey(prefix) }, { count });
  if (stored !== count)
    throw new TickqError(
      "BAD_OPTIONS",
      `partitions: ${count}, but the keys under prefix ${JSON.stringify(prefix)} are laid out in ${stored} partitions ` +
        `(${metaKey(prefix)}). Use partitions: ${stored}, or another prefix; changing the count needs a migration (docs/operate/cluster.md).`,
    );
}

/** What is left in a one-partition layout, in words; empty when nothing is. */
export function leftInLayout(stats: Stats): string[] {
  const left: string[] = [];
  const queued = Object.values(stats.queues).reduce((a, b) => a + b, 0);
  if (queued > 0) left.push(`${queued} queued`);
  for (const state of ["scheduled", "retry", "dead", "inflight"] as const)
    if (stats[state] > 0) left.push(`${stats[state]} ${state}`);
  const ordered = Object.values(stats.ordered).reduce((a, o) => a + o.waiting + o.running + o.dead, 0);
  if (ordered > 0) left.push(`${ordered} ordered ids`);
  const runs = Object.values(stats.workflows).reduce((a, w) => a + w.running + w.sleeping + w.waiting, 0);
  if (runs > 0) left.push(`${runs} workflow runs`);
  return left;
}

export function refuseLegacy(prefix: string, count: number, left: string[]): never {
  throw new TickqError(
    "BAD_OPTIONS",
    `partitions: ${count}, but jobs wait in the one-partition layout under prefix ${JSON.stringify(prefix)} (${left.join(", ")}): ` +
      `they would never run. Stop the old deployment and move them with migratePartitions({ redis, prefix, partitions: ${count} }) ` +
      `or \`tickq partitions migrate --partitions ${count}\` (docs/operate/cluster.md).`,
  );
}
