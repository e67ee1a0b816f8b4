// The `cluster` adapter case keeps every key of a test under one hash tag, so
// one slot, so one master: a plain connection to that master reaches them
// all, with KEYS, SCAN and the snapshot helpers as on one Redis (a Cluster
// client would send KEYS to some node, not to the one holding the keys).
import { Redis } from "ioredis";
import { newJid } from "../../src/job/codec.js";
import { slotOf } from "../../src/partitions/layout.js";

/**
 * A test prefix whose hash tag puts every key under it in one slot: uniquePrefix's shape (its id last) with
 * `{cl-<tag>}` after `tickq-test:`; the tag is the id unless given (prefixes that must share a master).
 */
export function uniqueTaggedPrefix(label: string, tag?: string): string {
  const id = newJid().slice(0, 8);
  return `tickq-test:{cl-${tag ?? id}}:${label}:${id}:`;
}

type Address = { host: string; port: number };
/** Each slot range, its master's address and its replicas' (none on the 3-master shape). */
type SlotMap = { low: number; high: number; host: string; port: number; replicas: Address[] }[];
// A cluster keeps its slots for the whole run (no failover, no resharding), so one read per process and cluster.
const slotMaps = new Map<string, Promise<SlotMap>>();

async function readSlots(clusterUrl: string): Promise<SlotMap> {
  const seed = new Redis(clusterUrl, { lazyConnect: true });
  try {
    await seed.connect();
    type Node = [string, number, ...unknown[]];
    const rows = (await seed.call("CLUSTER", "SLOTS")) as [number, number, Node, ...Node[]][];
    return rows.map(([low, high, [host, port], ...replicas]) => ({
      low,
      high,
      host,
      port,
      replicas: replicas.map(([replicaHost, replicaPort]) => ({ host: replicaHost, port: replicaPort })),
    }));
  } finally {
    seed.disconnect();
  }
}

function slotsOf(clusterUrl: string): Promise<SlotMap> {
  let map = slotMaps.get(clusterUrl);
  if (!map) {
    map = readSlots(clusterUrl).catch((error: unknown) => {
      slotMaps.delete(clusterUrl);
      throw error;
    });
    slotMaps.set(clusterUrl, map);
  }
  return map;
}

/** The addresses of the cluster's masters, as the cluster announces them (what a Cluster client connects to). */
export async function clusterMasters(clusterUrl: string): Promise<Address[]> {
  const seen = new Map<string, Address>();
  for (const { host, port } of await slotsOf(clusterUrl)) seen.set(`${host}:${port}`, { host, port });
  return [...seen.values()];
}

/** The addresses of every node that serves slots, masters and their replicas (what a cut must reach). */
export async function clusterNodes(clusterUrl: string): Promise<Address[]> {
  const seen = new Map<string, Address>();
  for (const { host, port, replicas } of await slotsOf(clusterUrl))
    for (const node of [{ host, port }, ...replicas]) seen.set(`${node.host}:${node.port}`, node);
  return [...seen.values()];
}

/** The address of the master that serves `prefix`'s slot, as the cluster announces it. */
export async function ownerOfPrefix(clusterUrl: string, prefix: string): Promise<Address> {
  const slot = slotOf(prefix);
  const owner = (await slotsOf(clusterUrl)).find((r) => r.low <= slot && slot <= r.high);
  if (!owner) throw new Error(`no master serves slot ${slot} of the test cluster`);
  return { host: owner.host, port: owner.port };
}

/** A direct connection to the master that serves `prefix`'s slot. */
export async function masterOfPrefix(clusterUrl: string, prefix: string): Promise<Redis> {
  return new Redis(await ownerOfPrefix(clusterUrl, prefix));
}

/**
 * A direct connection that reaches the keys under `prefix` for an adapter case opened on `redisUrl`: the
 * Redis itself, or over the cluster case the master of the prefix's slot (free of vitest: child processes use it).
 */
export async function directRedisFor(adapterName: string, redisUrl: string, prefix: string): Promise<Redis> {
  return adapterName === "cluster" ? masterOfPrefix(redisUrl, prefix) : new Redis(redisUrl);
}
