// A partition's new jids hash to it: a job routed to partition k by its
// flow or debounce key still has a jid whose partition is k, so
// tq.jobs.find(jid) asks one partition, not all. Drawing until one lands
// takes N tries on average, a few microseconds each.
import { newJid } from "../job/codec.js";
import type { Runtime } from "../tick/runtime.js";
import { partitionOf } from "./layout.js";

/** A new jid; under partitions, one whose partition is this runtime's. */
export function jidIn(runtime: Pick<Runtime, "partition">): string {
  const partition = runtime.partition;
  if (!partition || partition.count === 1) return newJid();
  for (;;) {
    const jid = newJid();
    if (partitionOf(jid, partition.count) === partition.index) return jid;
  }
}
