// The options every command takes (--prefix, --json), and reading numbers.
import type { Command } from "commander";
import { UsageError } from "./exit.js";

export interface GlobalOptions {
  prefix: string;
  json: boolean;
  /** --partitions, else TICKQ_PARTITIONS; undefined: one. */
  partitions: number | undefined;
}

export function globals(command: Command): GlobalOptions {
  const all = command.optsWithGlobals<{ prefix?: string; json?: boolean; partitions?: string }>();
  return {
    prefix: all.prefix ?? process.env.TICKQ_PREFIX ?? "tickq:",
    json: all.json === true,
    partitions: intOption(all.partitions ?? (process.env.TICKQ_PARTITIONS || undefined), "--partitions", 1),
  };
}

/** A whole number option, or a usage error naming it. */
export function intOption(value: string | undefined, name: string, min = 0): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new UsageError(`${name} must be a whole number ≥ ${min}, got ${JSON.stringify(value)}`);
  return Number(value);
}
