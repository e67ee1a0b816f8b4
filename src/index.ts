import { enqueueJobs } from "./client.js";
import { enqueueOrderedJobs } from "./ordered/enqueue.js";
import type { OrderedBulkJob, OrderedJob, OrderedRegistry, PayloadOf } from "./ordered/types.js";
import { createRuntime } from "./runtime.js";
import { readStats } from "./stats.js";
import { runtimes } from "./schedules/internal.js";
import { listSchedules } from "./schedules/list.js";
import type { ScheduleInfo } from "./schedules/types.js";
import { runTick } from "./tick.js";
import type {
  ArgsOf, BulkJob, EnqueueOptions, JobRegistry, Middleware, Stats, TickOptions, TickqOptions, TickReport,
} from "./types.js";

export interface Tickq<J extends JobRegistry, O extends OrderedRegistry = OrderedRegistry> {
  /** Pushes one job (or schedules it with delayMs / at); returns its jid. */
  enqueue<K extends keyof J & string>(name: K, args: ArgsOf<J[K]>, options?: EnqueueOptions): Promise<string>;
  /** Pushes many jobs in a few round trips; returns their jids in order. */
  enqueueBulk(jobs: BulkJob<keyof J & string>[]): Promise<string[]>;
  /** Adds a payload to an ordered id: merged with the id's waiting payloads, run once with them (src/ordered/). */
  enqueueOrdered<K extends keyof O & string>(name: K, job: OrderedJob<PayloadOf<O[K]>>): Promise<void>;
  /** Adds many payloads, to any ordered ids, in a few round trips; checks every one before writing any. */
  enqueueOrderedBulk(jobs: OrderedBulkJob<keyof O & string>[]): Promise<void>;
  /** Runs one bounded tick: resurrect, schedule, fetch, execute, ack. */
  tick(options?: TickOptions): Promise<TickReport>;
  stats(): Promise<Stats>;
  /** The recurring jobs declared here or held in Redis: spec, next run, last run, last jid. */
  schedules(): Promise<ScheduleInfo[]>;
  /** Adds middleware around every execution, outermost first. */
  use(middleware: Middleware): Tickq<J, O>;
  readonly prefix: string;
}

/**
 * @example
 * const tq = createTickq({
 *   redis: ioredisAdapter(new Redis(process.env.REDIS_URL)),
 *   jobs: { sendEmail: async ([to]: [string], ctx) => { … } },
 *   ordered: { indexShipment: { perform: async (id: string, payloads: { v: number }[], ctx) => { … }, retry: 25 } },
 * });
 * await tq.enqueue("sendEmail", ["a@b.c"]);
 * await tq.enqueueOrdered("indexShipment", { id: "shipment-42", payload: { v: 7 }, score: 7 });
 * const report = await tq.tick({ budgetMs: 10_000 });
 */
export function createTickq<J extends JobRegistry, O extends OrderedRegistry = Record<never, never>>(options: TickqOptions<J, O>): Tickq<J, O> {
  const runtime = createRuntime(options);
  const tickq: Tickq<J, O> = {
    enqueue: async (name, args, opts = {}) => (await enqueueJobs(runtime, [{ ...opts, name, args }]))[0]!,
    enqueueBulk: (jobs) => enqueueJobs(runtime, jobs),
    enqueueOrdered: (name, job) => enqueueOrderedJobs(runtime, [{ ...job, name }]),
    enqueueOrderedBulk: (jobs) => enqueueOrderedJobs(runtime, jobs),
    tick: (opts) => runTick(runtime, opts),
    stats: () => readStats(runtime),
    schedules: () => listSchedules(runtime),
    use(middleware) {
      runtime.middleware.push(middleware);
      return tickq;
    },
    prefix: runtime.prefix,
  };
  runtimes.set(tickq, runtime);
  return tickq;
}

export { TickqError } from "./errors.js";
export { defaultBackoff } from "./retry.js";
export { scripts } from "./scripts/index.js";
export type * from "./types.js";
export type * from "./ordered/types.js";
export type * from "./schedules/types.js";
