// TICKQ_ADAPTERS picks the adapters a run covers. Unset, the three default
// ones: node-redis runs only when named (npm run test:node-redis names it for
// the conformance suite and a core subset), since every suite over a fourth
// adapter would push npm test past its time budget. cluster (a private Redis
// Cluster the global setup starts) runs only when named too (npm run test:cluster);
// TICKQ_CLUSTER_REPLICAS gives its masters replicas (npm run test:cluster:replicas).
import { describe, expect, it } from "vitest";
import {
  ADAPTER_NAMES,
  clusterReplicasAsked,
  MAX_CLUSTER_REPLICAS,
  selectedAdapterNames,
} from "../helpers/adapter-names.js";

describe("TICKQ_ADAPTERS", () => {
  it("blank, as when unset, covers ioredis, upstash and rest, not node-redis", () => {
    // undefined would read this run's own TICKQ_ADAPTERS (test:quick sets it): blank values stand for unset.
    for (const value of ["", " , "]) expect(selectedAdapterNames(value)).toEqual(["ioredis", "upstash", "rest"]);
  });

  it("names node-redis like any other adapter, in the canonical order", () => {
    expect(selectedAdapterNames("node-redis")).toEqual(["node-redis"]);
    expect(selectedAdapterNames(" Node-Redis,ioredis ")).toEqual(["ioredis", "node-redis"]);
    expect(ADAPTER_NAMES).toContain("node-redis");
  });

  it("refuses an unknown name, listing the known ones", () => {
    expect(() => selectedAdapterNames("ioredis,noderedis")).toThrow(
      /unknown adapter "noderedis"; known: ioredis, upstash, rest, node-redis, cluster/,
    );
  });

  it("names cluster only when asked: unset, no run starts the private cluster", () => {
    expect(selectedAdapterNames("")).not.toContain("cluster");
    expect(selectedAdapterNames("cluster")).toEqual(["cluster"]);
    expect(selectedAdapterNames("cluster, ioredis")).toEqual(["ioredis", "cluster"]);
  });
});

describe("TICKQ_CLUSTER_REPLICAS", () => {
  it("blank, as when unset, asks for no replica", () => {
    for (const value of ["", " "]) expect(clusterReplicasAsked(value, ["cluster"])).toBe(0);
  });

  it("asks the cluster case for that many replicas a master", () => {
    expect(clusterReplicasAsked("1", ["cluster"])).toBe(1);
    expect(clusterReplicasAsked(" 2 ", ["ioredis", "cluster"])).toBe(2);
  });

  it("refuses what is not a count from 0 to the maximum", () => {
    for (const value of ["one", "-1", "1.5", "0x1", String(MAX_CLUSTER_REPLICAS + 1)])
      expect(() => clusterReplicasAsked(value, ["cluster"])).toThrow(/is not a replica count from 0 to 2/);
  });

  it("refuses replicas for a run that starts no cluster", () => {
    expect(() => clusterReplicasAsked("1", ["ioredis"])).toThrow(/add TICKQ_ADAPTERS=cluster/);
    expect(clusterReplicasAsked("0", ["ioredis"])).toBe(0);
  });
});
