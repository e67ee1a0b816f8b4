import type { Jobs } from "../jobs.js";

/** One queue library under the same benchmark. */
export interface System {
  name: string;
  /** Enqueues the jobs in bulk (bench/jobs.ts: no-ops, or sleeping jobs). */
  enqueue(jobs: Jobs): Promise<void>;
  /** Runs workers/ticks until n jobs are done; returns round trips if the system counts them. */
  drain(n: number, options?: DrainOptions): Promise<{ roundTrips?: number }>;
  /** Sits idle as the system would in production for ms milliseconds. */
  idle(ms: number): Promise<void>;
  close(): Promise<void>;
}

export interface DrainOptions {
  /** Jobs run at once; each system has its own default (tickq 100, the others 50). */
  concurrency?: number;
  /** tickq only: jobs fetched per round trip; default 100. */
  batch?: number;
}

export type SystemFactory = (redisUrl: string, label: string) => Promise<System>;
