// Ticks as Sidekiq processes. With a Sidekiq-compatible prefix a tick
// registers as a Sidekiq process's heartbeat does (launcher.rb): its
// identity in the `processes` set; a hash named by it with `info`, `busy`,
// `beat`, `quiet`, `rss`, `rtt_us`; and the hash of the jobs it is running
// (`IDENTITY:work` for Sidekiq ≥ 6.5, `IDENTITY:workers` before: both are
// written). Sidekiq Web's Busy page, `ProcessSet` and `WorkSet` then show
// live ticks and their jobs. The keys expire with the lease, so a dead tick
// vanishes when its lease does; finish removes them at once.
//
// Cost: none unless enabled (the default only for prefix ""). Enabled,
// begin registers, and every step, extend and finish carries a beat — the
// jobs running when it was sent — so the work hash costs a few commands a
// step, never a round trip a job. A change with no call going out for
// BEAT_MS sends one extend (lease.ts). The Lua side: lib/sidekiq/register-process.lua.
import { monotonicMs } from "../tick/clock.js";
import { TickqError } from "../errors.js";
import { isPrintableName } from "../names.js";
import { nameRecord } from "../name-record.js";
import { terminalJson } from "../printable.js";
import type { FetchedJob } from "../tick/passes/fetch.js";
import type { QueuePlan } from "../tick/queue-order.js";

/** How ticks show up as Sidekiq processes (the `sidekiqProcesses` option). */
export interface SidekiqProcessOptions {
  /** The hostname Sidekiq Web shows, and the first part of each tick's identity; default "tickq". */
  hostname?: string;
  /** Sidekiq's process tag; default "". */
  tag?: string;
  /** Labels beside "tickq", which is always one. */
  labels?: string[];
}

/** A beat as begin, step, finish and extend carry it (lib/sidekiq/register-process.lua). */
export interface Beat {
  number: number;
  running: { tid: string; work: string }[];
}

export interface SidekiqProcess {
  hostname: string;
  tag: string;
  labels: string[];
}

/** How soon a change in the running jobs is reported when no step goes out. */
export const BEAT_MS = 1_000;

/** The resolved option: on by default only where the keys are Sidekiq's own (prefix ""). */
export function sidekiqProcessOf(
  option: boolean | SidekiqProcessOptions | undefined,
  prefix: string,
): SidekiqProcess | undefined {
  if (option === undefined ? prefix !== "" : option === false) return undefined;
  const given: SidekiqProcessOptions = typeof option === "object" && option !== null ? option : {};
  const { hostname = "tickq", tag = "", labels = [] } = given;
  if (!isPrintableName(hostname, 200)) {
    throw new TickqError(
      "BAD_OPTIONS",
      `sidekiqProcesses.hostname must be a word without spaces or control characters, got ${terminalJson(hostname)}`,
    );
  }
  if (typeof tag !== "string" || !Array.isArray(labels) || !labels.every((l) => typeof l === "string")) {
    throw new TickqError(
      "BAD_OPTIONS",
      "sidekiqProcesses.tag must be a string and sidekiqProcesses.labels an array of strings",
    );
  }
  return { hostname, tag, labels: ["tickq", ...labels.filter((l) => l !== "tickq")] };
}

export interface TickIdentity {
  tickId: string;
  concurrency: number;
  plan: QueuePlan;
  /** Redis' clock, in seconds. */
  nowSec(): number;
}

interface Running {
  tid: string;
  runAt: number;
}

/** One tick's side of the registration: its keys, its `info`, and its beats. */
export class TickBeats {
  /** The heartbeat hash and the two work hashes, the `process` KEYS of the tick's calls. */
  readonly keys: { heartbeat: string; work: string; workers: string };
  private readonly identity: string;
  private readonly running = new Map<FetchedJob, Running>();
  private started = 0;
  private number = 0;
  private changed = false;
  private sentAt = monotonicMs();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly options: SidekiqProcess,
    prefix: string,
    private readonly tick: TickIdentity,
  ) {
    this.identity = `${options.hostname}:${tick.tickId}`;
    const key = prefix + this.identity;
    this.keys = { heartbeat: key, work: `${key}:work`, workers: `${key}:workers` };
  }

  /** begin's `info`, the fields a Sidekiq launcher writes (6.x and 7.x). */
  info(): string {
    const { plan } = this.tick;
    const c = plan.cumulative;
    // 0: strict order, as Sidekiq writes it. Keyed by queue names: src/name-record.ts.
    const weights = nameRecord(plan.names.map((name, i) => [name, c ? c[i]! - (i > 0 ? c[i - 1]! : 0) : 0]));
    return JSON.stringify({
      hostname: this.options.hostname,
      started_at: this.tick.nowSec(),
      pid: typeof process === "object" && typeof process.pid === "number" ? process.pid : 0,
      tag: this.options.tag,
      concurrency: this.tick.concurrency,
      queues: plan.names,
      weights: [weights],
      labels: this.options.labels,
      identity: this.identity,
      version: "tickq",
      // Sidekiq 7's Web offers no quiet/stop buttons for an embedded process: a tick reads no signals.
      embedded: true,
    });
  }

  /** A beat section: the next number, then each running job as Sidekiq's work entry. */
  section(): Beat {
    this.changed = false;
    this.sentAt = monotonicMs();
    const running = [...this.running].map(([job, r]) => ({
      tid: r.tid,
      work: JSON.stringify({ queue: job.queue, payload: job.raw, run_at: r.runAt }),
    }));
    return { number: ++this.number, running };
  }

  /** Runs a job, listed as running meanwhile (a Map entry: no Redis call per job). */
  async track<T>(job: FetchedJob, run: () => Promise<T>): Promise<T> {
    this.running.set(job, { tid: (++this.started).toString(36), runAt: Math.floor(this.tick.nowSec()) });
    this.changed = true;
    try {
      return await run();
    } finally {
      this.running.delete(job);
      this.changed = true;
    }
  }

  /** Calls `send` (an extend that beats) when the running jobs changed and no call carried them for BEAT_MS. */
  start(send: () => void): void {
    this.timer = setInterval(() => {
      if (this.changed && monotonicMs() - this.sentAt >= BEAT_MS) send();
    }, BEAT_MS);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
