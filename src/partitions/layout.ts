// Where a partition's keys live. With one partition the prefix is the user's
// own (today's layout and cost); with N, partition k's keys sit under
// `${prefix}{tag_k}:`, a hash tag whose slot falls in the k-th Nth of the
// 16,384 slots, so a cluster whose slots are split evenly over its masters
// (what `redis-cli --cluster create` and managed clusters do) gets the
// partitions spread over its nodes, and each partition's scripts stay in one slot.
import { TickqError } from "../errors.js";
import { crc16, SLOTS, slotOf } from "../redis/cluster-slot.js";

// The slot arithmetic is Redis Cluster's own (redis/cluster-slot.ts); kept
// exported here for the partition code and tests that read it with the layout.
export { crc16, slotOf };

/** The hash tag of partition `k` of `n`: the first `p<k>.<s>` whose slot lies in the k-th Nth of the slots. */
export function partitionTag(k: number, n: number): string {
  const low = Math.floor((k * SLOTS) / n);
  const high = Math.floor(((k + 1) * SLOTS) / n);
  for (let s = 0; ; s++) {
    const tag = `p${k}.${s}`;
    const slot = crc16(tag) % SLOTS;
    if (slot >= low && slot < high) return tag;
  }
}

export const MAX_PARTITIONS = 1_024;

/** Checks a partition count: an integer from 1 to MAX_PARTITIONS. */
export function checkPartitionCount(n: unknown): number {
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > MAX_PARTITIONS)
    throw new TickqError(
      "BAD_OPTIONS",
      `partitions: ${JSON.stringify(n)} is not a whole number from 1 to ${MAX_PARTITIONS}`,
    );
  return n;
}

/** The key prefix of each of `n` partitions: `[prefix]` for one; refuses a prefix with its own hash tag for more. */
export function partitionPrefixes(prefix: string, n: number): string[] {
  checkPartitionCount(n);
  if (n === 1) return [prefix];
  if (prefix.includes("{") || prefix.includes("}"))
    throw new TickqError(
      "BAD_OPTIONS",
      `partitions: ${n} needs a prefix without a hash tag (got ${JSON.stringify(prefix)}): each partition adds its own, ` +
        `and a tag in the prefix would put every partition in one slot. Use e.g. "tq:" instead.`,
    );
  return Array.from({ length: n }, (_, k) => `${prefix}{${partitionTag(k, n)}}:`);
}

/** The partition of a routing key (a jid, an ordered id, a unique or flow key, a workflow run id). */
export function partitionOf(routeKey: string, n: number): number {
  return n === 1 ? 0 : crc16(routeKey) % n;
}

/** A slot range and the master serving it, as CLUSTER SLOTS gives it. */
export interface SlotRange {
  first: number;
  last: number;
  master: string;
}

/** How many of `n` partitions' tags land on each master (masters in the order of their first slot). */
export function partitionsPerMaster(ranges: readonly SlotRange[], n: number): Map<string, number> {
  const per = new Map<string, number>();
  for (const r of [...ranges].sort((a, b) => a.first - b.first)) if (!per.has(r.master)) per.set(r.master, 0);
  for (let k = 0; k < n; k++) {
    const slot = crc16(partitionTag(k, n)) % SLOTS;
    const owner = ranges.find((r) => slot >= r.first && slot <= r.last)?.master;
    if (owner !== undefined) per.set(owner, (per.get(owner) ?? 0) + 1);
  }
  return per;
}

/** Multiples of the master count tried for an even spread before settling for the masters' count. */
const MOST_PER_MASTER = 8;

/**
 * The partition count `partitions: "auto"` picks for a cluster's slot map: the smallest multiple of
 * the number of masters whose partitions' tags (partitionTag) land evenly on the masters, every
 * master getting the same number. A cluster whose slots are split evenly (redis-cli --cluster
 * create, managed clusters) gets one partition a master; after uneven resharding it takes more,
 * up to MOST_PER_MASTER a master, then the master count (`even: false`). Never below 2: a
 * partitioned layout's keys carry tags (one partition is the untagged prefix), so a one-master
 * cluster gets two, which spread as soon as a second master takes half the slots.
 */
export function countForShape(ranges: readonly SlotRange[]): { count: number; masters: number; even: boolean } {
  const masters = new Set(ranges.map((r) => r.master)).size;
  if (masters === 0) return { count: 2, masters, even: false };
  for (let each = Math.ceil(2 / masters); each <= MOST_PER_MASTER && masters * each <= MAX_PARTITIONS; each++) {
    const count = masters * each;
    if ([...partitionsPerMaster(ranges, count).values()].every((got) => got === each))
      return { count, masters, even: true };
  }
  return { count: Math.min(Math.max(2, masters), MAX_PARTITIONS), masters, even: false };
}
