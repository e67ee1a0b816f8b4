// The public shape of recurring jobs: what `createTickq({ schedules })`
// takes and what `tq.schedules()` answers.

/** What to do with slots that passed while nothing ticked (a slot is missed once the next one is due too). */
export type MissedPolicy = "latest" | "all" | "none";

interface ScheduleBase<Name extends string> {
  /** The registered job to enqueue at every slot. */
  job: Name;
  /** Its args; default []. */
  args?: unknown[];
  /** Default: the job's own queue, else "default". */
  queue?: string;
  /**
   * "latest" (default): of the slots due at once, run only the most recent.
   * "all": run every due slot, at most `maxMissed` (the most recent ones).
   * "none": run a slot only when no later slot is due yet; otherwise skip to the next.
   */
  missed?: MissedPolicy;
  /** Cap of "all"; default 100. */
  maxMissed?: number;
}

/** A recurring job on a cron expression. */
export interface CronSchedule<Name extends string = string> extends ScheduleBase<Name> {
  /** A cron expression: 5 fields, or 6 with seconds first (parsed by the `cron` option's parser: croner from "tickq/cron"). */
  cron: string;
  /** IANA time zone the expression is read in; default UTC. */
  timezone?: string;
  /** Not with `cron`. */
  every?: never;
}

/** A recurring job at a fixed interval. */
export interface EverySchedule<Name extends string = string> extends ScheduleBase<Name> {
  /** A fixed interval in ms (≥ 1,000): slots are the multiples of it since the epoch, so every deployment agrees on them. */
  every: number;
  /** Not with `every`. */
  cron?: never;
  /** Not with `every`: its slots are the same in every time zone. */
  timezone?: never;
}

/** One recurring job: on a `cron` expression, or `every` so many ms. */
export type ScheduleSpec<Name extends string = string> = CronSchedule<Name> | EverySchedule<Name>;

/** Schedule name → spec. A name is 1–100 characters without whitespace. */
export type Schedules<Name extends string = string> = Record<string, ScheduleSpec<Name>>;

/** One schedule as `tq.schedules()` reports it. */
export interface ScheduleInfo {
  /** The schedule's name, its key in `schedules`. */
  name: string;
  /** This deployment's spec; for a schedule only Redis knows (another deployment's), the spec stored there. */
  spec: ScheduleSpec;
  /** Declared in this deployment's code. */
  declared: boolean;
  /** Redis holds this deployment's spec (false: not yet synced, or another deployment synced a different one last). */
  inSync: boolean;
  /** When the next slot is due (Redis time); null when not in Redis yet or never again. */
  nextRunAt: Date | null;
  /** The last slot enqueued; null when none yet. */
  lastRunAt: Date | null;
  /** Its jid: "<name>:<slot ms>". */
  lastJid: string | null;
  /** No deployment declared it at the last sync: pruned once the grace period has passed. */
  orphanedAt: Date | null;
  /** Paused (`tq.schedules.pause`): its slots pass and enqueue nothing until it is resumed. */
  paused: boolean;
  /** The next slots, `nextRunAt` first (up to 3; only `nextRunAt` for a schedule declared elsewhere). */
  nextRuns: Date[];
}

/** `tq.schedules()`: the recurring jobs; pause, resume or run one now by name. */
export interface SchedulesApi {
  (): Promise<ScheduleInfo[]>;
  /** Its slots pass and enqueue nothing until resumed (every deployment's ticks skip it). */
  pause(name: string): Promise<void>;
  /** Runs again from its next slot (the slots passed while paused are not run). */
  resume(name: string): Promise<void>;
  /** Enqueues its job now, with its args and queue, beside its slots; returns the jid. Declared here only. */
  runNow(name: string): Promise<string>;
}

/** When a schedule's slots fall, as epoch ms. */
export interface Timing {
  /** The first slot strictly after `ms`; null when there is none (a pattern whose years are past). */
  after(ms: number): number | null;
  /** Up to `n` slots in [from, to] — the most recent ones — oldest first. */
  latest(n: number, from: number, to: number): number[];
}

/**
 * Reads a cron expression in an IANA time zone (undefined: UTC) into its
 * slots; throws for a bad expression. The `cron` option of createTickq:
 * `cron` from "tickq/cron" (croner).
 */
export type CronParser = (pattern: string, timezone: string | undefined) => Timing;
