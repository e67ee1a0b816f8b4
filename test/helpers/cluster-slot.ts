// The `cluster` adapter case keeps every key of a test under one hash tag, so
// one slot, so one master: a plain connection to that master reaches them
// all, with KEYS, SCAN and the snapshot helpers as on one Redis (a Cluster
// client would send KEYS to some node, not to the one holding the keys).
import { Redis } from "ioredis";
import { newJid } from "../../src/client/job.js";
import { slotOf } from "../../src/partitions/layout.js";

/** A test prefix whose hash tag puts every key under it in one slot. */
export function uniqueTaggedPrefix(label: string): string {
  return `tickq-test:{cluster:${label.replace(/[{}]/g, "")}:${newJid().slice(0, 8)}}:`;
}

type SlotMap = { low: number; high: number; host: string; port: number }[];
// The cluster keeps its slots for the whole run (no failover, no resharding), so one read per process.
let slotMap: Promise<SlotMap> | undefined;

async function readSlots(clusterUrl: string): Promise<SlotMap> {
  const seed = new Redis(clusterUrl, { lazyConnect: true });
  try {
    await seed.connect();
    const rows = (await seed.call("CLUSTER", "SLOTS")) as [number, number, [string, number, ...unknown[]]][];
    return rows.map(([low, high, [host, port]]) => ({ low, high, host, port }));
  } finally {
    seed.disconnect();
  }
}

/** A direct connection to the master that serves `prefix`'s slot. */
export async function masterOfPrefix(clusterUrl: string, prefix: string): Promise<Redis> {
  slotMap ??= readSlots(clusterUrl).catch((error: unknown) => {
    slotMap = undefined;
    throw error;
  });
  const slot = slotOf(prefix);
  const owner = (await slotMap).find((r) => r.low <= slot && slot <= r.high);
  if (!owner) throw new Error(`no master serves slot ${slot} of the test cluster`);
  return new Redis({ host: owner.host, port: owner.port });
}
