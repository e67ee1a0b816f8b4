// The jobs a pipeline fetched and has not started, in fetch order, each with
// the moment it was fetched: the hand-back (prefetch.ts) waits on the
// oldest, and shared slots (slots.ts) start the oldest of all pipelines
// first. The moments sit in an array beside the jobs, read at the head, so
// the fill run for every job freed costs no lookup by job; the head moves
// along an index, the arrays shortened once it passed half of them, so a
// job started costs no shift of the jobs behind it.
export class HeldJobs<W> {
  #jobs: (W | undefined)[] = [];
  #at: number[] = [];
  #first = 0;

  get length(): number {
    return this.#jobs.length - this.#first;
  }

  /** The next job to start; undefined when none is held. */
  head(): W | undefined {
    return this.#jobs[this.#first];
  }

  /** When the head was fetched; undefined when none is held. */
  headSince(): number | undefined {
    return this.#at[this.#first];
  }

  /** Jobs one fetch brought, all fetched at `at`. */
  add(jobs: readonly W[], at: number): void {
    // Stores at the end, not a push a job into each array (bench/client-instructions.ts counts the difference).
    const held = this.#jobs;
    const since = this.#at;
    let end = held.length;
    for (let k = 0; k < jobs.length; k++, end++) {
      held[end] = jobs[k];
      since[end] = at;
    }
  }

  /** Takes the head off. */
  shift(): W | undefined {
    if (this.#first >= this.#jobs.length) return undefined;
    const job = this.#jobs[this.#first];
    // Started, the job is the pipeline's to keep or drop: the array must not hold it.
    this.#jobs[this.#first++] = undefined;
    if (this.#first === this.#jobs.length) this.#clear();
    else if (this.#first >= 64 && this.#first * 2 >= this.#jobs.length) {
      this.#jobs.splice(0, this.#first);
      this.#at.splice(0, this.#first);
      this.#first = 0;
    }
    return job;
  }

  /** Takes `job` off, wherever it stands. */
  remove(job: W): void {
    const i = this.#jobs.indexOf(job, this.#first);
    if (i >= 0) this.#jobs.splice(i, 1), this.#at.splice(i, 1);
  }

  /** Takes every job off, in fetch order. */
  takeAll(): W[] {
    const jobs = this.#jobs.slice(this.#first) as W[];
    this.#clear();
    return jobs;
  }

  #clear(): void {
    this.#jobs = [];
    this.#at = [];
    this.#first = 0;
  }
}
