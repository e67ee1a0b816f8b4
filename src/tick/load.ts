// A tick's load, as its calls report it: step and extend carry it into the
// lease hash, where stats sums it over live ticks. In a file of its own
// because the pipeline measures it and the lease's extend sends it, and the
// pipeline already stands on the lease.

/** A tick's jobs as a call reports them: handlers running, and jobs fetched that wait for a slot. */
export interface TickLoad {
  running: number;
  waiting: number;
}

/** A load as extend and step carry it: "running waiting", or "" for none. */
export function loadText(load: TickLoad | undefined): string {
  return load === undefined ? "" : `${load.running} ${load.waiting}`;
}
