// Jids chosen to land in one partition: a job without a flow key goes to the
// partition its jid hashes to (src/partitions/route.ts).
import { partitionOf } from "../../src/partitions/layout.js";

/** `n` jids, `${tag}-i`, that all hash to partition `k` of `count`. */
export function jidsIn(k: number, count: number, n: number, tag: string): string[] {
  const jids: string[] = [];
  for (let i = 0; jids.length < n; i++) if (partitionOf(`${tag}-${i}`, count) === k) jids.push(`${tag}-${i}`);
  return jids;
}
