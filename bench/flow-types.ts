// The flow bench's figures and options, apart from the bench (flow.ts) and
// its table (flow-table.ts), which both use them.
export interface FlowBenchOptions {
  jobs: number;
  duplicates: number;
  plain: number;
  runs: number;
  batch: number;
}

export type Scenario = "plain" | "exclusive" | "alone" | "enqueued" | "cold" | "parked";

/**
 * Per scenario: jobs/s of each run; Redis commands a job (first run); round
 * trips a job (the measured tickq's calls to Redis, first run); the µs Redis
 * spent in tickq's scripts a job (each run, wall time inside Redis); and the
 * µs of CPU the Redis process used a job (each run): a busy machine makes
 * Redis wait for a core, which inflates the script µs and the rates, but
 * not the CPU it uses.
 */
export interface FlowFigures extends Record<Scenario, number[]> {
  commands: Partial<Record<Scenario, number>>;
  roundTrips: Partial<Record<Scenario, number>>;
  scriptUs: Record<Scenario, number[]>;
  cpuUs: Record<Scenario, number[]>;
}
