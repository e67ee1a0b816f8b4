// A Tickq over N partitions: N single-partition cores (the engine as it is,
// each under its own tagged prefix) behind the one Tickq interface. Writes go
// to the partition their exclusive key routes to (route.ts); ticks serve
// partitions in parallel (tick.ts); reads ask every partition and merge.
// Before its first call it checks the partition count stored in Redis
// (meta.ts), so a mismatched deployment writes nothing.
import { jidIn } from "./jid.js";
import type { Tickq } from "../tickq.js";
import type { TickqRuntime } from "../runtime.js";
import { checkJobs } from "../client/enqueue.js";
import { TickqError } from "../errors.js";
import { checkOrderedJobs } from "../ordered/enqueue.js";
import type { KickScope } from "../kick/types.js";
import type { OrderedRegistry } from "../ordered/types.js";
import { recordRecurringClocks } from "../recurring/clock-shift.js";
import type { Schedules } from "../recurring/types.js";
import type { BulkJob } from "../job/enqueue-options.js";
import type { JobRegistry } from "../job/definition.js";
import type { TickqOptions } from "../types.js";
import type { WorkflowInputs, WorkflowsApi } from "../workflows/types.js";
import { partitionedJobs, partitionedQueues } from "./jobs.js";
import { partitionOf, partitionPrefixes } from "./layout.js";
import { mergeExposition, mergeHistory, mergeRecentTicks, mergeSchedules, mergeStats, mergeTicks } from "./merge.js";
import { mergeMetrics } from "./merge-metrics.js";
import { checkStoredCount, leftInLayout, refuseLegacy } from "./meta.js";
import { partitionOfJob, partitionOfOrdered } from "./route.js";
import { PartitionTicks } from "./tick.js";
import { partitionedWorkflows } from "./workflows.js";

type AnyTickq = Tickq<JobRegistry, OrderedRegistry, WorkflowInputs>;
type AnyOptions = TickqOptions<JobRegistry, OrderedRegistry, WorkflowInputs>;
/** Builds a tickq of any partition count (createTickqCore): partitions: "auto" builds through it. */
export type CoreFactory = (options: AnyOptions) => AnyTickq;
/** Builds one key space's tickq and the runtime behind it: a partition, read for its checks before a write. */
export type PartitionFactory = (options: AnyOptions) => { tickq: AnyTickq; runtime: TickqRuntime };

/** Each schedule lives in the partition of its name, so one partition's ticks run it, once per slot. */
function schedulesOf(schedules: Schedules | undefined, k: number, n: number): Schedules | undefined {
  if (!schedules || typeof schedules !== "object") return schedules;
  return Object.fromEntries(Object.entries(schedules).filter(([name]) => partitionOf(name, n) === k));
}

/** Groups items by partition, keeping each item's index, so answers go back in order. */
function groupBy<T>(items: T[], partition: (item: T) => number): Map<number, { at: number[]; items: T[] }> {
  const groups = new Map<number, { at: number[]; items: T[] }>();
  items.forEach((item, i) => {
    const k = partition(item);
    const group = groups.get(k) ?? { at: [], items: [] };
    group.at.push(i);
    group.items.push(item);
    groups.set(k, group);
  });
  return groups;
}

export function createPartitioned<J extends JobRegistry, O extends OrderedRegistry, W extends WorkflowInputs>(
  options: TickqOptions<J, O, W>,
  count: number,
  makeCore: PartitionFactory,
): Tickq<J, O, W> {
  const prefix = options.prefix ?? "tickq:";
  const base = { ...options, partitions: 1 } as TickqOptions<JobRegistry, OrderedRegistry, WorkflowInputs>;
  const built = partitionPrefixes(prefix, count).map((p, k) => {
    const core = makeCore({ ...base, prefix: p, schedules: schedulesOf(options.schedules, k, count) });
    core.runtime.partition = { index: k, count, newJid: () => jidIn(k, count) };
    return core;
  });
  for (const b of built) b.runtime.partition!.runtimeOf = (routeKey) => built[partitionOf(routeKey, count)]!.runtime;
  const cores = built.map((b) => b.tickq);
  const first = built[0]!.runtime;
  const clocks = built.map((b) => b.runtime.recurring);
  const ticks = new PartitionTicks(cores);
  let checked: Promise<void> | undefined;
  const ready = (): Promise<void> => {
    checked ??= checkLayout(options, base, first, prefix, count, makeCore).catch((error: unknown) => {
      // A refusal stands; a Redis that did not answer is asked again at the next call.
      if (!(error instanceof TickqError && error.code === "BAD_OPTIONS")) checked = undefined;
      throw error;
    });
    return checked;
  };
  let spread = 0; // jobs with no route key go round the partitions
  const pick = (job: BulkJob) => partitionOfJob(options.jobs, job, count, spread++ % count);
  const stats = Object.assign(
    async () => {
      await ready();
      return mergeStats(await Promise.all(cores.map((c) => c.stats())));
    },
    {
      history: async (days?: number) => mergeHistory(await Promise.all(cores.map((c) => c.stats.history(days)))),
    },
  );

  const whole: Whole = { options, count, prefix, built, cores, first, clocks, ticks, ready, pick, stats };
  return partitionedTickq<J, O, W>(whole, cores);
}

/** The Tickq over the partitions' cores (`scoped`: each one's, scoped alike). */
function partitionedTickq<J extends JobRegistry, O extends OrderedRegistry, W extends WorkflowInputs>(
  whole: Whole,
  scoped: AnyTickq[],
): Tickq<J, O, W> {
  const { count, prefix, built, cores, clocks, ticks, stats } = whole;
  const after = afterReady(whole.ready);
  const jobs = partitionedJobs(scoped.map((c) => c.jobs));
  const queues = partitionedQueues(scoped.map((c) => c.queues));
  const workflows = partitionedWorkflows(
    scoped.map((c) => c.workflows),
    built.map((b) => b.runtime),
  ) as unknown as WorkflowsApi<W>;
  const tickq: Tickq<J, O, W> = {
    ...(partitionedEnqueues(whole, scoped, after) as Pick<Tickq<J, O, W>, EnqueueMember>),
    workflows: {
      start: after(workflows.start),
      startBulk: after(workflows.startBulk),
      startAndWait: after(workflows.startAndWait),
      sendEvent: after(workflows.sendEvent),
      get: after(workflows.get),
      result: after(workflows.result),
      list: after(workflows.list),
      cancel: after(workflows.cancel),
      check: after(workflows.check),
      retry: after(workflows.retry),
      fork: after(workflows.fork),
      retryAll: after(workflows.retryAll),
    } as WorkflowsApi<W>,
    tick: after((opts) => ticks.tick(opts)),
    reserveTicks: after((n, maxParallel) => cores[0]!.reserveTicks(n, maxParallel)),
    scope: (more: KickScope) =>
      partitionedTickq<J, O, W>(
        whole,
        cores.map((c) => c.scope(more)),
      ),
    stats,
    jobs: {
      find: after(jobs.find),
      list: after(jobs.list),
      retry: after(jobs.retry),
      retryAll: after(jobs.retryAll),
      delete: after(jobs.delete),
      deleteAll: after(jobs.deleteAll),
      runNow: after(jobs.runNow),
      cancel: after(jobs.cancel),
      cancelOrdered: after(jobs.cancelOrdered),
      result: after(jobs.result),
    },
    queues: { list: after(queues.list), pause: after(queues.pause), resume: after(queues.resume) },
    metrics: {
      query: after(async (query) => {
        // One range for all: each partition answers the same steps.
        const fixed = typeof query === "object" && query !== null ? { untilMs: Date.now(), ...query } : query;
        return mergeMetrics(await Promise.all(cores.map((c) => c.metrics.query(fixed))));
      }),
      prometheus: after(async () => mergeExposition(await Promise.all(cores.map((c) => c.metrics.prometheus())))),
    },
    on(event, listener) {
      const offs = cores.map((c) => c.on(event, listener as never));
      return () => {
        for (const off of offs) off();
      };
    },
    // A schedule is declared in, and claimed by, the partition of its name.
    schedules: Object.assign(
      after(async () => mergeSchedules(await Promise.all(cores.map((c) => c.schedules())))),
      {
        pause: after((name: string) => cores[partitionOf(name, count)]!.schedules.pause(name)),
        resume: after((name: string) => cores[partitionOf(name, count)]!.schedules.resume(name)),
        runNow: after((name: string) => cores[partitionOf(name, count)]!.schedules.runNow(name)),
      },
    ),
    ticks: Object.assign(
      after(async () => mergeTicks(await Promise.all(cores.map((c) => c.ticks())))),
      { recent: after(async () => mergeRecentTicks(await Promise.all(cores.map((c) => c.ticks.recent())))) },
    ),
    use(middleware) {
      for (const c of cores) c.use(middleware);
      return tickq;
    },
    // Dashboard sessions and the auth throttle keep their keys in partition 0.
    guards: scoped[0]!.guards,
    prefix,
    partitions: count,
  };
  recordRecurringClocks(tickq, clocks);
  return tickq;
}

/** What createPartitioned made, which each scope's Tickq shares. */
interface Whole {
  options: AnyOptions;
  count: number;
  prefix: string;
  built: { tickq: AnyTickq; runtime: TickqRuntime }[];
  cores: AnyTickq[];
  first: TickqRuntime;
  clocks: TickqRuntime["recurring"][];
  ticks: PartitionTicks;
  /** Settles once the layout in Redis is checked (the first call waits for it). */
  ready(): Promise<void>;
  /** The partition a job goes to. */
  pick(job: BulkJob): number;
  stats: AnyTickq["stats"];
}

type After = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) => (...args: A) => Promise<R>;

/** Wraps a call so that it waits for the layout check first. */
function afterReady(ready: () => Promise<void>): After {
  return (fn) =>
    async (...args) => {
      await ready();
      return fn(...args);
    };
}

type EnqueueMember = "enqueue" | "enqueueAndWait" | "enqueueBulk" | "enqueueOrdered" | "enqueueOrderedBulk";

/** The enqueues: each job to the partition its route key names (a job with none, round the partitions). */
function partitionedEnqueues(whole: Whole, scoped: AnyTickq[], after: After): Pick<AnyTickq, EnqueueMember> {
  const { count, first, pick } = whole;
  return {
    enqueue: after(async (name, args, opts = {}) => {
      const k = pick({ ...opts, name, args: args as unknown[] });
      return scoped[k]!.enqueue(name, args as never, opts);
    }),
    enqueueAndWait: after(async (name, args, opts = {}) => {
      const { timeoutMs: _, ...enqueueOptions } = opts;
      const k = pick({ ...enqueueOptions, name, args: args as unknown[] });
      return scoped[k]!.enqueueAndWait(name, args as never, opts) as never;
    }),
    enqueueBulk: after(async (list) => {
      if (!Array.isArray(list) || list.length === 0) return scoped[0]!.enqueueBulk(list);
      // As on one Redis, a bad job throws before any partition writes.
      await checkJobs(first, list as BulkJob[]);
      const jids: string[] = new Array(list.length);
      const groups = groupBy(list as BulkJob[], pick);
      await Promise.all(
        [...groups].map(async ([k, g]) => {
          const got = await scoped[k]!.enqueueBulk(g.items as never[]);
          got.forEach((jid, i) => void (jids[g.at[i]!] = jid));
        }),
      );
      return jids;
    }),
    enqueueOrdered: after(async (name, job) =>
      scoped[partitionOfOrdered(name, String(job?.id), count)]!.enqueueOrdered(name, job as never),
    ),
    enqueueOrderedBulk: after(async (list) => {
      if (!Array.isArray(list) || list.length === 0) return scoped[0]!.enqueueOrderedBulk(list);
      await checkOrderedJobs(first, list);
      const groups = groupBy(list, (j) => partitionOfOrdered(j?.name, String(j?.id), count));
      await Promise.all([...groups].map(([k, g]) => scoped[k]!.enqueueOrderedBulk(g.items as never[])));
    }),
  };
}

async function checkLayout(
  options: AnyOptions,
  base: AnyOptions,
  first: TickqRuntime,
  prefix: string,
  count: number,
  makeCore: PartitionFactory,
): Promise<void> {
  await checkStoredCount(first, prefix, count);
  // On a cluster the one-partition layout lives under a tagged prefix, never this one.
  if (options.redis.cluster) return;
  const legacy = makeCore({ ...base, prefix, schedules: undefined, sidekiqProcesses: false }).tickq;
  const left = leftInLayout(await legacy.stats());
  if (left.length > 0) refuseLegacy(prefix, count, left);
}
