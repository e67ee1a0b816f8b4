// The tickq factory without a cron parser: what the edge entries (Worker,
// Vercel, through src/http/edge.ts) build on, so croner (~10 KB gzipped)
// stays out of their bundles unless they are given `cron`. "tickq"
// (index.ts) is this with croner by default. What those entries reach
// (src/http/app.ts, routes/, dashboard/) takes its values from here and
// errors.js, not index.ts: in the package's build (scripts/build.mjs, code
// splitting), a module two entries reach lands in a shared chunk, and
// index.ts there would put croner in tickq/cloudflare's imports
// (test/integration/package/worker-bundle-size.test.ts checks both the example Worker and dist).
import { pauseSchedule, runScheduleNow } from "./recurring/control.js";
import { jobsApi, queuesApi } from "./jobs-api.js";
import { queryMetrics } from "./metrics/query.js";
import type { MetricsApi } from "./metrics/types.js";
import { exposition } from "./stats/exposition.js";
import { listRecentTicks } from "./admin/recent-ticks.js";
import { listTicks } from "./admin/ticks.js";
import { enqueueJobs } from "./client/enqueue.js";
import { TickqError } from "./errors.js";
import type { TickqListener } from "./tick/events.js";
import { readHistory } from "./stats/history.js";
import { kick, kickIfAsked, kickSettings } from "./kick/kick.js";
import { reserveTicks, startTick } from "./kick/parallel.js";
import type { KickScope } from "./kick/types.js";
import { enqueueOrderedJobs } from "./ordered/enqueue.js";
import type { OrderedRegistry } from "./ordered/types.js";
import { createRuntime, type TickqRuntime } from "./runtime.js";
import { tickCapabilities } from "./capabilities.js";
import { checkPartitionCount } from "./partitions/layout.js";
import { createPartitioned, type CoreFactory, type PartitionFactory } from "./partitions/facade.js";
import { createAutoPartitioned } from "./partitions/auto.js";
import { readStats } from "./stats/read.js";
import { checkWaitMs, waitForResult } from "./results/await.js";
import { AWAIT_FIELD } from "./results/record.js";
import type { ResultOf } from "./results/types.js";
import { recordRecurringClocks } from "./recurring/clock-shift.js";
import { authGuards } from "./admin/guards.js";
import { listRecurring } from "./recurring/list.js";
import { workflowsApi } from "./workflows/client.js";
import type { WorkflowInputs, WorkflowsApi } from "./workflows/types.js";
import type { JobRegistry } from "./job/definition.js";
import type { TickqOptions } from "./types.js";
import type { Tickq } from "./tickq.js";

/**
 * createTickq without its default cron parser: a cron schedule needs `options.cron`.
 * @example
 * import { cron } from "tickq/cron";
 * const tq = createTickqCore({ redis, jobs, cron, schedules: { nightly: { cron: "0 3 * * *", job: "report" } } });
 */
export function createTickqCore<
  J extends JobRegistry,
  O extends OrderedRegistry = Record<never, never>,
  W extends WorkflowInputs = Record<never, never>,
>(options: TickqOptions<J, O, W>): Tickq<J, O, W> {
  if (options?.partitions === "auto") {
    // One Redis keeps today's layout and cost; a cluster's count is found at the first call.
    if (options.redis?.cluster === true) return createAutoPartitioned(options, createTickqCore as CoreFactory);
    return createTickqCore({ ...options, partitions: 1 });
  }
  const count = options?.partitions === undefined ? 1 : checkPartitionCount(options.partitions);
  if (count > 1) return createPartitioned(options, count, buildCore as PartitionFactory);
  return buildCore(options).tickq;
}

/** One key space's tickq, and the runtime behind it, which partitions/ reads (its index, the checks before a write). */
function buildCore<J extends JobRegistry, O extends OrderedRegistry, W extends WorkflowInputs>(
  options: TickqOptions<J, O, W>,
): { tickq: Tickq<J, O, W>; runtime: TickqRuntime } {
  const runtime = createRuntime(options);
  runtime.capabilities = tickCapabilities(runtime);
  const kicks = kickSettings(options.kick);
  // One of each for every scope: they hold no per-scope state.
  const stats = Object.assign(() => readStats(runtime), { history: (days?: number) => readHistory(runtime, days) });
  const jobs = jobsApi(runtime);
  const queues = queuesApi(runtime);
  // tq.metrics: the minute tallies (metrics/), and Prometheus' text of them with stats() (stats/).
  const metrics: MetricsApi = { query: (query) => queryMetrics(runtime, query), prometheus: () => exposition(runtime) };
  const guards = authGuards(runtime);
  const build = (scope: KickScope): Tickq<J, O, W> => {
    const workflows = workflowsApi(runtime, {
      kick: (asked) => {
        if ((asked ?? scope.kick) === true) kick(runtime, kicks, scope);
      },
      tick: async (budgetMs, tickId) =>
        (await startTick(runtime, { ...kicks.tick, budgetMs, ...(tickId === undefined ? {} : { tickId }) })).more,
    }) as WorkflowsApi<W>;
    const tickq: Tickq<J, O, W> = {
      async enqueue(name, args, opts = {}) {
        const [jid] = await enqueueJobs(runtime, [{ ...opts, name, args }]);
        kickIfAsked(runtime, kicks, scope, [opts]);
        return jid!;
      },
      async enqueueAndWait(name, args, opts = {}) {
        const { timeoutMs, ...enqueueOptions } = opts;
        const waitMs = checkWaitMs(timeoutMs);
        const [jid] = await enqueueJobs(runtime, [{ ...enqueueOptions, name, args }], { [AWAIT_FIELD]: 1 });
        kickIfAsked(runtime, kicks, scope, [{ ...enqueueOptions, kick: enqueueOptions.kick ?? true }]);
        return (await waitForResult(runtime, jid!, waitMs)) as ResultOf<J[typeof name]>;
      },
      async enqueueBulk(jobs) {
        const jids = await enqueueJobs(runtime, jobs);
        kickIfAsked(runtime, kicks, scope, jobs);
        return jids;
      },
      enqueueOrdered: (name, job) => enqueueOrderedJobs(runtime, [{ ...job, name }]),
      enqueueOrderedBulk: (jobs) => enqueueOrderedJobs(runtime, jobs),
      workflows,
      tick: (opts) => startTick(runtime, opts),
      reserveTicks: async (count, maxParallel) => (await reserveTicks(runtime, count, maxParallel)).ids,
      scope: (more) => build({ ...scope, ...more }),
      stats,
      jobs,
      queues,
      metrics,
      on(event, listener) {
        const set = runtime.listeners[event] as Set<TickqListener<typeof event>> | undefined;
        if (!set)
          throw new TickqError(
            "BAD_ARGS",
            `on: unknown event ${JSON.stringify(event)}; events are succeeded, failed, dead, expired, workflow.completed, workflow.failed`,
          );
        set.add(listener);
        return () => void set.delete(listener);
      },
      schedules: Object.assign(() => listRecurring(runtime), {
        pause: (name: string) => pauseSchedule(runtime, name, true),
        resume: (name: string) => pauseSchedule(runtime, name, false),
        runNow: (name: string) => runScheduleNow(runtime, name),
      }),
      ticks: Object.assign(() => listTicks(runtime), { recent: () => listRecentTicks(runtime) }),
      use(middleware) {
        runtime.middleware.push(middleware);
        return tickq;
      },
      guards,
      prefix: runtime.prefix,
      partitions: 1,
    };
    recordRecurringClocks(tickq, [runtime.recurring]);
    return tickq;
  };
  return { tickq: build({}), runtime };
}
