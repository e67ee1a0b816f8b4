// The phases `npm run chaos` runs after the plain ones, over each adapter,
// on the same faulted private Redis. A phase is a file of its own under
// bench/chaos/; it is registered here, and judges itself into a column of
// the table (bench/chaos/checks.ts: its rows, and the problems that fail it).
import type { Column } from "./checks.js";
import { CLOCK_PHASE } from "./clock-phase.js";
import { cancelPhase } from "./cancel-phase.js";
import type { AdapterName } from "./connect.js";
import { longJobsPhase } from "./long-jobs-phase.js";
import { migrationPhase } from "./migration-phase.js";
import { poisonPhase } from "./poison-phase.js";
import type { PrivateRedis } from "./private-redis.js";
import type { Rng } from "./rng.js";
import { rollbackPhase } from "./rollback-phase.js";
import { waiterPhase } from "./waiter-phase.js";
import { workflowPhase } from "./workflow-phase.js";

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

export const EXTRA_PHASES: ChaosPhase[] = [
  poisonPhase,
  CLOCK_PHASE,
  longJobsPhase,
  cancelPhase,
  workflowPhase,
  migrationPhase,
  waiterPhase,
  rollbackPhase,
];
