// The passes of migratePartitions: every job of the old layout's partitions,
// state by state, goes to the partition of the new layout its route key
// names. A job is first adopted there (partition_adopt.lua: once per jid and
// migration), then deleted at the source, so a move cut anywhere and run
// again loses nothing and doubles nothing. A job whose new partition is the
// key space it is in (the partitions of two counts can share a hash tag:
// layout.ts) stays where it is. Queued jobs are read queue by queue, the
// source partitions merged by enqueue time: each source's own order is kept
// exactly, and across sources a job lands after those enqueued before it
// whenever each source's queue is in enqueue order. A job moves with the
// debounce window, claims and rate log it depends on (carried.ts), or, while
// a running job holds a slot of its key in the old layout, not at all.
import { TickqError } from "../errors.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import type { Runtime } from "../tick/runtime.js";
import type { JobInfo, JobState, JobsApi, QueuesApi } from "../admin/types.js";
import type { JobLogger } from "../job/context.js";
import { type Carried, Dependencies } from "./carried.js";
import { jobTimeMs } from "../job/timestamp.js";

/** How long a partition remembers the jids it adopted: a migration run again within it doubles nothing. */
export const ADOPTED_KEEP_MS = 7 * 24 * 3600_000;
export const MOVED_STATES = ["dead", "retry", "scheduled", "queued"] as const satisfies readonly JobState[];
type MovedState = (typeof MOVED_STATES)[number];
const SET_OF = { dead: "dead", retry: "retry", scheduled: "schedule", queued: "schedule" } as const;

export interface Source {
  prefix: string;
  runtime: Runtime;
  jobs: JobsApi;
  queues: QueuesApi;
}

export interface Move {
  sources: Source[];
  targets: Runtime[];
  /** The index in `targets` of a job's partition in the new layout. */
  route(job: JobInfo): number;
  /** The set of jids a target adopted in this migration. */
  adopted: string;
  batch: number;
  logger: JobLogger;
}

export interface Moved {
  moved: Record<MovedState, number>;
  stayed: number;
  /** Jobs not moved, as a running job in the old layout holds a slot of their keys: those keys, each once. */
  held: { jobs: number; keys: string[] };
}

export async function moveJobs(move: Move): Promise<Moved> {
  const out: Moved = { moved: { dead: 0, retry: 0, scheduled: 0, queued: 0 }, stayed: 0, held: { jobs: 0, keys: [] } };
  const flows = new Dependencies();
  const heldJids = new Set<string>();
  const seen = new Set<string>();
  const arrived = new Set<string>(); // jids moved in this run: found again in a partition that stays, not counted as staying
  let order = 0; // queued jobs keep their order: each is due a millisecond after the one before
  for (const state of MOVED_STATES) {
    const lists =
      state === "queued"
        ? (await queueNames(move.sources)).map((queue) => ({ queue }))
        : [{ queue: undefined as string | undefined }];
    for (const { queue } of lists) {
      // A page cursor names the next job, so jobs deleted behind it leave no gap; walking again
      // until a walk moves nothing covers whatever a cursor could still miss.
      for (;;) {
        let movedNow = 0;
        const streams = move.sources.map((source) => walk(source.jobs, state, queue, move.batch));
        for await (const { job, from } of merged(streams, state === "queued")) {
          const source = move.sources[from]!;
          const key = `${from} ${job.jid} ${job.raw}`;
          if (seen.has(key)) continue;
          seen.add(key);
          const target = move.targets[move.route(job)]!;
          if (target.prefix === source.prefix) {
            if (!arrived.has(job.jid)) out.stayed++;
            continue;
          }
          const depends = await flows.read(source.runtime, target, job.raw);
          if ("held" in depends) {
            if (!heldJids.has(job.jid)) heldJids.add(job.jid), out.held.jobs++;
            for (const key of depends.held) if (!out.held.keys.includes(key)) out.held.keys.push(key);
            continue;
          }
          arrived.add(job.jid);
          const score = state === "queued" ? (++order / 1000).toFixed(3) : String((job.at ?? 0) / 1000);
          if ((await adopt(target, move.adopted, job, SET_OF[state], score, depends.carried)) === 2)
            move.logger.warn(
              `tickq: job ${job.jid} (${job.name}) moved without its unique claim: a job of the new deployment holds its key`,
            );
          if (await removeAtSource(source.jobs, job, move.logger)) {
            out.moved[state]++;
            movedNow++;
          }
        }
        if (movedNow === 0) break;
      }
    }
  }
  return out;
}

async function queueNames(sources: Source[]): Promise<string[]> {
  const names = new Set<string>();
  for (const source of sources) for (const q of await source.queues.list()) names.add(q.name);
  return [...names].sort();
}

async function* walk(
  jobs: JobsApi,
  state: MovedState,
  queue: string | undefined,
  batch: number,
): AsyncGenerator<JobInfo> {
  let cursor: string | null = null;
  do {
    const page = await jobs.list(state, { limit: batch, order: "oldest", cursor, ...(queue ? { queue } : {}) });
    yield* page.jobs;
    cursor = page.cursor;
  } while (cursor);
}

/** The jobs of every stream, each stream in its order; by enqueue time across streams when `byTime`, else one after another. */
async function* merged(
  streams: AsyncGenerator<JobInfo>[],
  byTime: boolean,
): AsyncGenerator<{ job: JobInfo; from: number }> {
  const heads = await Promise.all(streams.map((s) => s.next()));
  for (;;) {
    let pick = -1;
    heads.forEach((head, i) => {
      if (head.done) return;
      if (pick < 0 || (byTime && enqueuedAt(head.value) < enqueuedAt(heads[pick]!.value as JobInfo))) pick = i;
    });
    if (pick < 0) return;
    yield { job: heads[pick]!.value as JobInfo, from: pick };
    heads[pick] = await streams[pick]!.next();
  }
}

const enqueuedAt = (job: JobInfo): number => jobTimeMs(job.job.enqueued_at ?? job.job.created_at ?? 0);

/** 1 once adopted; 2 when a claim it carried is another job's in the target. */
async function adopt(
  target: Runtime,
  adopted: string,
  job: JobInfo,
  set: string,
  score: string,
  carried: Carried,
): Promise<number> {
  return runCall(
    target,
    protocol.partition_adopt,
    { adopted: `${target.prefix}${adopted}`, into: `${target.prefix}${set}` },
    { jid: job.jid, score, job: job.raw, keepMs: ADOPTED_KEEP_MS, ...carried },
  );
}

/** Deletes the job at the source; false when it was gone already (a migration run again). */
async function removeAtSource(jobs: JobsApi, job: JobInfo, logger: JobLogger): Promise<boolean> {
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
