/** One queue library under the same benchmark. */
export interface System {
  name: string;
  /** Enqueues n no-op jobs in bulk. */
  enqueue(n: number): Promise<void>;
  /** Runs workers/ticks until n jobs are done; returns round trips if the system counts them. */
  drain(n: number): Promise<{ roundTrips?: number }>;
  /** Sits idle as the system would in production for ms milliseconds. */
  idle(ms: number): Promise<void>;
  close(): Promise<void>;
}

export type SystemFactory = (redisUrl: string, label: string) => Promise<System>;
