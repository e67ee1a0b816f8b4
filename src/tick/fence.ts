// The fence around a tick's work, as the pipeline and the capabilities see
// it (lease.ts makes it): whether a job may start now, and how to ask Redis.
export interface Fence {
  /** True while the lease was confirmed recently enough to start a job. */
  valid(): boolean;
  /** A call sent at `sentAt` found the lease and extended it. */
  confirmed(sentAt: number): void;
  /** Asks Redis now (one extend call at a time); resolves true if the lease is held. */
  confirm(): Promise<boolean>;
  /** Time since the last confirmed call was sent. */
  age(): number;
  stop(): void;
}
