// Before a partitioned tickq's first call: the partition count stored in
// Redis must be its own (partitions.lua stores it the first time), no
// migration may be moving the keys to another count (partition_move_begin.lua
// marks it), and on a single Redis no job may wait in the one-partition layout
// under the same prefix (it would never run: migratePartitions moves it).
// Refusals name the fix. With `partitions: 1` nothing here runs, so a single
// Redis keeps today's cost.
import { TickqError } from "../errors.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import type { Runtime } from "../tick/runtime.js";
import type { Stats } from "../stats/types.js";

/** The key that holds the partition count: under the user's prefix, outside every partition. */
export const metaKey = (prefix: string) => `${prefix}partitions`;

/** What the count key holds: nothing, a count, or the mark of a migration from one count to another. */
export type StoredLayout =
  | { kind: "none" }
  | { kind: "count"; count: number }
  | { kind: "moving"; from: number; to: number; id: string; mark: string };

export function readStored(value: string): StoredLayout {
  if (value === "") return { kind: "none" };
  const moving = /^(\d+)>(\d+) (\S+)$/.exec(value);
  if (moving) return { kind: "moving", from: Number(moving[1]), to: Number(moving[2]), id: moving[3]!, mark: value };
  const count = Number(value);
  if (Number.isInteger(count) && count > 0) return { kind: "count", count };
  throw new TickqError(
    "BAD_OPTIONS",
    `the partition count key holds ${JSON.stringify(value)}, which is no count: was it written by something else than tickq?`,
  );
}

export async function checkStoredCount(runtime: Runtime, prefix: string, count: number): Promise<void> {
  const stored = readStored(await runCall(runtime, protocol.partitions, { meta: metaKey(prefix) }, { count }));
  if (stored.kind === "moving") refuseMoving(prefix, `partitions: ${count}`, stored);
  if (stored.kind === "count" && stored.count !== count)
    throw new TickqError(
      "BAD_OPTIONS",
      `partitions: ${count}, but the keys under prefix ${JSON.stringify(prefix)} are laid out in ${stored.count} partitions ` +
        `(${metaKey(prefix)}). Use partitions: ${stored.count}, or another prefix; changing the count needs a migration: ` +
        `\`tickq partitions migrate --partitions ${count} --prefix ${prefix}\` (docs/operate/cluster.md).`,
    );
}

/** Refuses to run while a migration moves the keys: neither the old count nor the new one sees them all. */
export function refuseMoving(prefix: string, what: string, moving: { from: number; to: number }): never {
  throw new TickqError(
    "BAD_OPTIONS",
    `${what}, but the keys under prefix ${JSON.stringify(prefix)} are being moved from ${moving.from} to ${moving.to} partitions ` +
      `(${metaKey(prefix)}): a migration is under way, or was cut. Stop the old deployment, finish it by running it again, ` +
      `\`tickq partitions migrate --partitions ${moving.to} --prefix ${prefix}\` or migratePartitions({ redis, prefix, partitions: ${moving.to} }), ` +
      `then start with partitions: ${moving.to} (docs/operate/cluster.md).`,
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
      `or \`tickq partitions migrate --partitions ${count} --prefix ${prefix}\` (docs/operate/cluster.md).`,
  );
}
