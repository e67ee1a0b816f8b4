// migratePartitions: moves the jobs of a one-partition layout (prefix
// `from`) into N partitions (prefix `prefix`), in four passes — dead, retry,
// scheduled, queued — a page at a time. Each job is first adopted by its
// partition (partition_adopt.lua: written once per jid, byte for byte), then
// deleted at the source through the jobs API, so a migration stopped at any
// point and run again loses nothing and doubles nothing. Queued jobs land in
// their partition's schedule, due at once in their old order: the first tick
// queues them. Ordered ids, workflow runs and running jobs are not moved; the
// report lists what is left, for the old deployment to finish first.
import { createTickqCore } from "../core.js";
import { TickqError } from "../errors.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import { createRuntime, type Runtime } from "../tick/runtime.js";
import type { JobInfo, JobState } from "../admin/types.js";
import type { JobLogger, JobRegistry, RedisAdapter } from "../types.js";
import { partitionOf, partitionPrefixes } from "./layout.js";
import { findPartitionCount } from "./auto.js";
import { checkStoredCount, leftInLayout } from "./meta.js";
import { routeKeyOf } from "./route.js";

/** Options of {@link migratePartitions}. */
export interface MigratePartitionsOptions {
  /** The Redis both layouts live in (a cluster client for a cluster). */
  redis: RedisAdapter;
  /** The partition count to move to (above 1), or "auto": the one found from the cluster's shape (docs/operate/cluster.md). */
  partitions: number | "auto";
  /** The new layout's prefix, without a hash tag; default "tickq:". */
  prefix?: string;
  /** The one-partition layout's prefix; default `prefix` (on a cluster: the old prefix with its hash tag, such as "{tq}:"). */
  from?: string;
  /** The deployment's jobs: jobs with a flow or debounce key are routed by it, as enqueue routes them; default by jid. */
  jobs?: JobRegistry;
  /** Jobs read and moved per page; default 500. */
  batch?: number;
  /** Where warnings go; default console. */
  logger?: JobLogger;
}

/** What {@link migratePartitions} moved, and what it left in the old layout. */
export interface MigrationReport {
  /** The partition count the jobs moved into (the one found, with `partitions: "auto"`). */
  partitions: number;
  /** Jobs moved, per state they were in. */
  moved: {
    /** From the dead set. */
    dead: number;
    /** From the retry set. */
    retry: number;
    /** From the schedule (delayed jobs). */
    scheduled: number;
    /** From the queues, now due at once in their partition's schedule. */
    queued: number;
  };
  /** What stays in the old layout, in words (ordered ids, workflow runs, running jobs); empty when nothing does. */
  left: string[];
}

/** How long a partition remembers the jids it adopted: a migration run again within it doubles nothing. */
const ADOPTED_KEEP_MS = 7 * 24 * 3600_000;
const STATES = ["dead", "retry", "scheduled", "queued"] as const satisfies readonly JobState[];
const SET_OF = { dead: "dead", retry: "retry", scheduled: "schedule", queued: "schedule" } as const;

/**
 * Moves waiting, scheduled, retry and dead jobs from a one-partition layout into `partitions`
 * partitions; stores the count, so the new deployment starts. Stop the old deployment first.
 * @example
 * const report = await migratePartitions({ redis, prefix: "tq:", from: "{tq}:", partitions: 6 });
 */
export async function migratePartitions(options: MigratePartitionsOptions): Promise<MigrationReport> {
  const prefix = options.prefix ?? "tickq:";
  const from = options.from ?? prefix;
  const logger = options.logger ?? console;
  if (options.partitions === 1) throw new TickqError("BAD_OPTIONS", "migratePartitions moves to partitions: 2 or more");
  const count =
    options.partitions === "auto"
      ? await findPartitionCount({ redis: options.redis, prefix, jobs: {} }, logger)
      : options.partitions;
  const targets = partitionPrefixes(prefix, count).map((p) =>
    createRuntime({ redis: options.redis, prefix: p, jobs: {}, logger }),
  );
  await checkStoredCount(targets[0]!, prefix, count);
  const source = createTickqCore({ redis: options.redis, prefix: from, jobs: {}, logger, sidekiqProcesses: false });
  const batch = options.batch ?? 500;
  const moved = { dead: 0, retry: 0, scheduled: 0, queued: 0 };
  let order = 0; // queued jobs keep their order: each is due a millisecond after the one before
  for (const state of STATES) {
    const done = new Set<string>();
    for (;;) {
      const page = (await source.jobs.list(state, { limit: batch, order: "oldest" })).jobs.filter(
        (job) => !done.has(`${job.jid} ${job.raw}`),
      );
      if (page.length === 0) break;
      for (const job of page) {
        done.add(`${job.jid} ${job.raw}`);
        const score = state === "queued" ? (++order / 1000).toFixed(3) : String((job.at ?? 0) / 1000);
        const target = targets[targetOf(options.jobs ?? {}, job, targets.length)]!;
        await adopt(target, job, SET_OF[state], score);
        if (await removeAtSource(source.jobs, job, logger)) moved[state]++;
      }
    }
  }
  return { partitions: count, moved, left: leftInLayout(await source.stats()) };
}

function targetOf(jobs: JobRegistry, job: JobInfo, count: number): number {
  const key = routeKeyOf(jobs, { name: job.name, args: Array.isArray(job.job.args) ? job.job.args : [], jid: job.jid });
  return partitionOf(key ?? job.jid, count);
}

async function adopt(target: Runtime, job: JobInfo, set: string, score: string): Promise<void> {
  await runCall(
    target,
    protocol.partition_adopt,
    { adopted: `${target.prefix}adopted`, into: `${target.prefix}${set}` },
    { jid: job.jid, score, job: job.raw, keepMs: ADOPTED_KEEP_MS },
  );
}

/** Deletes the job at the source; false when it was gone already (a migration run again). */
async function removeAtSource(
  jobs: { delete(jid: string): Promise<JobInfo> },
  job: JobInfo,
  logger: JobLogger,
): Promise<boolean> {
  try {
    const removed = await jobs.delete(job.jid);
    if (removed.raw !== job.raw)
      logger.warn(`tickq: job ${job.jid} changed at the source while it moved: is the old deployment still ticking?`);
    return true;
  } catch (error) {
    if (error instanceof TickqError && error.code === "NOT_FOUND") return false;
    throw error;
  }
}
