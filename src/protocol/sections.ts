// Parts that several entry scripts share, declared once: each is read in
// Lua by the library named beside it.
import {
  counted,
  flag,
  group,
  keyGroup,
  list,
  maybe,
  number,
  optional,
  trailed,
  trailer,
  text,
  tuple,
  groups,
  joined,
  packed,
  texts,
} from "./define.js";

/** lib/sidekiq/register-process.lua: a Sidekiq process's heartbeat and work hashes (Sidekiq >= 6.5 and before). */
export const processKeys = keyGroup("heartbeat", "work", "workers");

/** lib/sidekiq/register-process.lua: a beat, numbered, with the jobs running as Sidekiq work entries. */
export const beat = optional(group({ number, running: counted(group({ tid: text, work: text })) }), "keys");

/** lib/tick/resurrect-dead-ticks.lua and lib/delayed/promote-due.lua: the housekeeping limits. */
export const housekeep = group({ resurrectLimit: number, lockMs: number, scanLimit: number, scheduleLimit: number });

/** lib/tick/fetch-jobs.lua: how many jobs, from which queues, and for weighted order one 1-based queue per slot. */
export const fetch = group({ batch: number, queues: counted(text), picks: counted(number) });

/**
 * lib/tick/ack-jobs.lua: successes grouped by queue (their jobs joined in one argument; `place`, when they are a
 * whole fetched group, all succeeded, its place: lib/tick/ack-jobs.lua by_place.cut; else ""), then the other outcomes
 * (code, queue, job, updated text or patch, delay in seconds each). Their count may carry two trailers,
 * in this order. Results (lib/results/keep-results.lua): how many results entries follow the outcomes,
 * how many succeeded jobs to keep, for how many seconds, and how long an awaited result lives (ms).
 * Metrics (lib/metrics/record-runs.lua), " m<groups> <retention s>": the successes summed per queue and
 * job name (src/metrics/section.ts), then per other outcome its name, run time and wait ('' unmeasured).
 */
export const acks = group({
  succeeded: counted(group({ queue: text, place: text, jobs: joined })),
  others: trailed(
    group({ code: text, queue: text, job: text, updated: text, delay: number }),
    trailer({
      name: "results",
      fields: { keep: number, ageSec: number, ttlMs: number },
      entries: group({ number, state: text, keep: flag, jid: text, members: text }),
    }),
    trailer({
      name: "metrics",
      tag: "m",
      fields: { retentionSec: number },
      entries: group({
        name: text,
        queue: text,
        entries: number,
        ms: number,
        waitMs: number,
        durations: text,
        waits: text,
      }),
      perItem: group({ name: text, ms: text, waitMs: text }),
    }),
  ),
});

/**
 * lib/ordered/state.lua and lib/ordered/ack-ids.lua: the ordered names a tick serves and its ordered acks; absent for
 * a tick without ordered jobs. The others' count may carry the metrics trailer (lib/metrics/record-ordered-runs.lua),
 * " m<entries> <retention s>": the successes' run times and starts (Redis ms), in ack order, as runs of successes
 * that measured the same (how many, run time, start), packed; then (perItem) per other outcome its run time and
 * start. A batch of short runs shares a few measures: a few values where a success was two, each handled by the
 * client's Redis library and read by Redis (bench/ordered-instructions.ts).
 */
export const ordered = optional(
  group({
    names: counted(text),
    succeeded: counted(group({ name: text, ids: packed(group({ id: text, fence: number })) })),
    others: trailed(
      group({ code: text, name: text, id: text, fence: number, extra: text }),
      trailer({
        name: "metrics",
        tag: "m",
        fields: { retentionSec: number },
        entries: group({ runs: number, ms: number, startMs: number }),
        packed: true,
        perItem: group({ ms: text, startMs: text }),
      }),
    ),
  }),
  "last",
);

/** lib/tick/fetch-jobs.lua's groups: per queue its jobs (step.lua joins them: lib/tick/joined-jobs.lua) and, per job, its counts (none when all are 0). */
export const fetched = groups({
  queue: text,
  jobs: texts,
  counts: groups({ resurrections: number, interruptions: number, suspect: flag, doubts: number }),
  /** How many jobs the tick's list of the queue took before these: an ack of them all names them by it. */
  place: number,
});

/** lib/ordered/fetch-ids.lua's groups: one per name; fences run on from `first`; empty lists where every id has 1 payload or 0. */
export const orderedFetched = list(
  tuple({
    name: text,
    first: number,
    ids: texts,
    payloads: texts,
    /** The scores as Redis wrote them (numbers' text): readOrderedFetched reads each as a number. */
    scores: texts,
    counts: list(number),
    failures: list(number),
    resurrections: list(number),
    suspects: list(number),
    interruptions: list(number),
    doubts: list(number),
  }),
);

/** lib/tick/fetch-jobs.lua's flow part, when the fetch met flow jobs: the k-th flow job's fence is `fence` + k. */
export const flowPart = maybe(tuple({ capped: flag, fence: number, parked: flag }));

/** begin.lua's and housekeep.lua's first five fields. */
export const housekept = {
  nowMs: number,
  resurrected: number,
  scheduled: number,
  moreResurrect: flag,
  moreSchedule: flag,
} as const;
