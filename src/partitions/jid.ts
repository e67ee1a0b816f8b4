// A partition's new jids hash to it: a job routed to partition k by its
// flow or debounce key still has a jid whose partition is k, so
// tq.jobs.find(jid) asks one partition, not all. Drawing until one lands
// takes N tries on average, a few microseconds each. The client draws
// through its runtime's `partition.newJid` (facade.ts sets it).
import { newJid } from "../job/codec.js";
import { partitionOf } from "./layout.js";

/** A new jid whose partition is `index` of `count`. */
export function jidIn(index: number, count: number): string {
  if (count === 1) return newJid();
  for (;;) {
    const jid = newJid();
    if (partitionOf(jid, count) === index) return jid;
  }
}
