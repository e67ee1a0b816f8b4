// What a chaos phase is and what it is given: the registry (phases.ts)
// imports every phase, and every phase these types, so they stand apart.
import type { Column } from "./checks.js";
import type { AdapterName } from "./connect.js";
import type { PrivateRedis } from "./private-redis.js";
import type { Rng } from "./rng.js";

export interface PhaseContext {
  adapter: AdapterName;
  /** The faulted private Redis; a phase that needs another (a Sentinel set) starts its own. */
  redis: PrivateRedis;
  /** A Redis that is never faulted, for the phase's ledger. */
  ledgerUrl: string;
  runId: string;
  workers: number;
  /** Faults of each kind to inject; the phase's column must fail when fewer were. */
  perKind: number;
  seconds: number;
  settleSeconds: number;
  leaseMs: number;
  budgetMs: number;
  rng: Rng;
  log: (line: string) => void;
}

export interface ChaosPhase {
  /** The column's name is `${name} ${adapter}`. */
  name: string;
  run(ctx: PhaseContext): Promise<Column>;
}
