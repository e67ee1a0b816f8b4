// One durable-workflow engine under the peers bench: the same workflow everywhere, STEPS steps each
// a no-op returning its number, the run returning their sum. Every engine's clock runs from the
// first start call to the last result its caller holds (starts included, for all alike).

export interface WorkflowBatch {
  ms: number;
  /** Redis commands a step (INFO commandstats, scripts' commands included), for the engines on Redis. */
  commandsPerStep?: number;
  /** Requests to the store a step (starts included), for the engines that count them. */
  requestsPerStep?: number;
}

export interface WorkflowSystem {
  name: string;
  /** Its durability, printed beside its row. */
  durability: string;
  /** `runs` runs of `steps` steps, started together; resolves when every result is held. */
  runMany(runs: number, steps: number): Promise<WorkflowBatch>;
  close(): Promise<void>;
}

/** The sum every run returns, checked by each engine on its results. */
export const expectedSum = (steps: number) => (steps * (steps - 1)) / 2;

export function checkSums(name: string, sums: unknown[], steps: number): void {
  const bad = sums.findIndex((s) => s !== expectedSum(steps));
  if (bad >= 0) throw new Error(`${name}: run ${bad} returned ${JSON.stringify(sums[bad])}, not ${expectedSum(steps)}`);
}
