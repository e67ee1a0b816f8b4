// Which adapters a run covers: the default ones, or the comma list in
// TICKQ_ADAPTERS. Free of vitest, so vitest.config.ts refuses a bad list once,
// before any test file loads, instead of every file failing on its own.
export const ADAPTER_NAMES = ["ioredis", "upstash", "rest", "node-redis", "cluster"] as const;

export type AdapterName = (typeof ADAPTER_NAMES)[number];

/**
 * What a run with TICKQ_ADAPTERS unset covers. node-redis is left out: every suite over a fourth adapter
 * added about a quarter to the suites' time, past npm test's budget, so `npm run test:node-redis` runs the
 * conformance suite and a core subset over it instead (npm test runs that too). cluster (ioredis' Cluster
 * client over a private 3-master Redis Cluster, every key under one hash tag) is left out too: the global
 * setup starts that cluster only when TICKQ_ADAPTERS names it (`npm run test:cluster`).
 */
export const DEFAULT_ADAPTER_NAMES: readonly AdapterName[] = ["ioredis", "upstash", "rest"];

const isAdapterName = (name: string): name is AdapterName => (ADAPTER_NAMES as readonly string[]).includes(name);

/** The adapters `value` (TICKQ_ADAPTERS) names, in the canonical order; the default ones when it is unset or blank. */
export function selectedAdapterNames(value: string | undefined = process.env.TICKQ_ADAPTERS): AdapterName[] {
  const asked = (value ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
  if (asked.length === 0) return [...DEFAULT_ADAPTER_NAMES];
  const unknown = asked.filter((name) => !isAdapterName(name));
  if (unknown.length > 0) {
    throw new Error(
      `TICKQ_ADAPTERS: unknown adapter ${unknown.map((n) => JSON.stringify(n)).join(", ")}; known: ${ADAPTER_NAMES.join(", ")} (a comma list, e.g. TICKQ_ADAPTERS=ioredis,rest)`,
    );
  }
  return ADAPTER_NAMES.filter((name) => asked.includes(name));
}

/** Keeps the items of `list` whose adapter this run covers. */
export function onlySelected<T extends { name: string }>(list: T[]): T[] {
  const selected: string[] = selectedAdapterNames();
  return list.filter((item) => selected.includes(item.name));
}

/** The most replicas a master of the test cluster gets: each one is a redis-server the setup starts and syncs. */
export const MAX_CLUSTER_REPLICAS = 2;

/**
 * The replicas each master of the `cluster` case's private cluster gets (TICKQ_CLUSTER_REPLICAS; 0 when unset or
 * blank): `npm run test:cluster:replicas` asks for 1, so the suites run on 3 masters with a replica each. Set
 * without `cluster` in TICKQ_ADAPTERS it is refused, since no cluster would start and the run would cover nothing
 * it names.
 */
export function clusterReplicasAsked(
  value: string | undefined = process.env.TICKQ_CLUSTER_REPLICAS,
  adapters: readonly AdapterName[] = selectedAdapterNames(),
): number {
  const text = (value ?? "").trim();
  if (text === "") return 0;
  const replicas = Number(text);
  if (!/^\d+$/.test(text) || replicas > MAX_CLUSTER_REPLICAS)
    throw new Error(
      `TICKQ_CLUSTER_REPLICAS: ${JSON.stringify(value)} is not a replica count from 0 to ${MAX_CLUSTER_REPLICAS}`,
    );
  if (replicas > 0 && !adapters.includes("cluster"))
    throw new Error("TICKQ_CLUSTER_REPLICAS applies to the cluster adapter: add TICKQ_ADAPTERS=cluster");
  return replicas;
}
