// The phases `npm run chaos` runs after the plain ones, over each adapter,
// on the same faulted private Redis. A phase is a file of its own under
// bench/chaos/; it is registered here, and judges itself into a column of
// the table (bench/chaos/checks.ts: its rows, and the problems that fail it).
import { CLOCK_PHASE } from "./clock-phase.js";
import { cancelPhase } from "./cancel-phase.js";
import { longJobsPhase } from "./long-jobs-phase.js";
import { migrationPhase } from "./migration-phase.js";
import { poisonPhase } from "./poison-phase.js";
import { rollbackPhase } from "./rollback-phase.js";
import { waiterPhase } from "./waiter-phase.js";
import { workflowPhase } from "./workflow-phase.js";
import type { ChaosPhase } from "./phase-types.js";

export type { ChaosPhase, PhaseContext } from "./phase-types.js";

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
