// The options every command takes (--prefix, --json), and reading numbers.
import type { Command } from "commander";
import { UsageError } from "./exit.js";
import { terminalJson } from "./output.js";

export interface GlobalOptions {
  prefix: string;
  json: boolean;
  /** --partitions, else TICKQ_PARTITIONS: a count or "auto"; undefined: one (on a cluster, "auto"). */
  partitions: number | "auto" | undefined;
  /** --cluster, else REDIS_CLUSTER=1: REDIS_URL names a Redis Cluster's node (or several, comma-separated). */
  cluster: boolean;
}

export function globals(command: Command): GlobalOptions {
  const all = command.optsWithGlobals<{ prefix?: string; json?: boolean; partitions?: string; cluster?: boolean }>();
  const partitions = all.partitions ?? (process.env.TICKQ_PARTITIONS || undefined);
  const cluster = process.env.REDIS_CLUSTER;
  return {
    prefix: all.prefix ?? process.env.TICKQ_PREFIX ?? "tickq:",
    json: all.json === true,
    partitions: partitions === "auto" ? "auto" : intOption(partitions, "--partitions", 1),
    cluster: all.cluster === true || cluster === "1" || cluster === "true",
  };
}

/** A whole number option, or a usage error naming it. */
export function intOption(value: string | undefined, name: string, min = 0): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new UsageError(`${name} must be a whole number ≥ ${min}, got ${terminalJson(value)}`);
  return Number(value);
}
