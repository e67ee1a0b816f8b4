// The jobs a pipeline fetched and has not started, in fetch order, each with
// the moment it was fetched: the hand-back (prefetch.ts) waits on the
// oldest, and shared slots (slots.ts) start the oldest of all pipelines
// first. The moments sit in an array beside the jobs, read at the head, so
// the fill run for every job freed costs no lookup by job.
export class HeldJobs<W> {
  private readonly jobs: W[] = [];
  private readonly at: number[] = [];

  get length(): number {
    return this.jobs.length;
  }

  /** The next job to start; undefined when none is held. */
  head(): W | undefined {
    return this.jobs[0];
  }

  /** When the head was fetched; undefined when none is held. */
  headSince(): number | undefined {
    return this.at[0];
  }

  /** Jobs one fetch brought, all fetched at `at`. */
  add(jobs: readonly W[], at: number): void {
    for (const job of jobs) this.jobs.push(job), this.at.push(at);
  }

  /** Takes the head off. */
  shift(): W | undefined {
    this.at.shift();
    return this.jobs.shift();
  }

  /** Takes `job` off, wherever it stands. */
  remove(job: W): void {
    const i = this.jobs.indexOf(job);
    if (i >= 0) this.jobs.splice(i, 1), this.at.splice(i, 1);
  }

  /** Takes every job off, in fetch order. */
  takeAll(): W[] {
    this.at.length = 0;
    return this.jobs.splice(0);
  }
}
