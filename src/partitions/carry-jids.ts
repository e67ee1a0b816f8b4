// The caller's jids the old layout remembers (enqueue.lua's `jids` set and
// the older `jids:WINDOW:BUCKET` sets) are remembered by every partition of
// the new one for the rest of their window (partition_jids_adopt.lua), so a
// client retrying a timed-out enqueue across a migration never doubles its
// job. Every partition: once a job ran, its jid no longer tells which key
// routed it, and a retried enqueue goes where its key routes it. The cost is
// each remembered jid once a partition, until its window ends.
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import type { Runtime } from "../tick/runtime.js";

/** Carries the jids each of `sources` remembers into each of `targets` but itself; how many were read. */
export async function carryJids(sources: Runtime[], targets: Runtime[], batch: number): Promise<number> {
  let read = 0;
  for (const source of sources) {
    const into = targets.filter((t) => t.prefix !== source.prefix);
    if (into.length === 0) continue;
    for (const set of [`${source.prefix}jids`, ...(await legacySets(source))]) {
      let cursor = "0";
      do {
        const page = await runCall(source, protocol.partition_jids_read, { ids: set }, { cursor, count: batch });
        if (page.jids.length > 0) {
          read += page.jids.length;
          await Promise.all(
            into.map((t) => runCall(t, protocol.partition_jids_adopt, { ids: `${t.prefix}jids` }, { jids: page.jids })),
          );
        }
        cursor = page.cursor;
      } while (cursor !== "0");
    }
  }
  return read;
}

/** The `jids:WINDOW:BUCKET` sets of one partition, each once. */
async function legacySets(source: Runtime): Promise<string[]> {
  const sets = new Set<string>();
  let cursor = "0";
  do {
    const page = await runCall(source, protocol.partition_jid_sets, { ids: `${source.prefix}jids` }, { cursor });
    for (const set of page.sets) sets.add(set);
    cursor = page.cursor;
  } while (cursor !== "0");
  return [...sets];
}
