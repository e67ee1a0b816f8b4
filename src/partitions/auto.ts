// `partitions: "auto"`: the partition count found from the cluster's shape.
// createTickq is synchronous and an adapter speaks only scripts, so the count
// is found at the first call, by a script (partition_shape.lua): the count
// already stored for the prefix wins (a deployment never re-lays its keys out
// on its own, even after the cluster grew); with none stored, the smallest
// multiple of the masters whose partitions land evenly on them
// (layout.ts, countForShape), stored as `partitions: N` stores it, SET NX, so
// two processes starting at once end up with one count. Until then the
// Tickq below holds what synchronous calls give it (use, on, scope) and
// hands them to the partitioned Tickq once it is built.
import type { Tickq } from "../tickq.js";
import { TickqError } from "../errors.js";
import type { KickScope } from "../kick/types.js";
import type { OrderedRegistry } from "../ordered/types.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import type { TickqEventName, TickqListener } from "../tick/events.js";
import { EVENT_NAMES } from "../runtime.js";
import { createRuntime } from "../runtime.js";
import { hashTagOf, type Runtime } from "../tick/runtime.js";
import type { JobLogger, Middleware } from "../job/context.js";
import type { JobRegistry } from "../job/definition.js";
import type { TickqOptions } from "../types.js";
import type { WorkflowInputs } from "../workflows/types.js";
import type { CoreFactory } from "./facade.js";
import { countForShape, partitionsPerMaster, type SlotRange } from "./layout.js";
import { metaKey, readStored, refuseMoving, type StoredLayout } from "./meta.js";

type AnyTickq = Tickq<JobRegistry, OrderedRegistry, WorkflowInputs>;
type AnyOptions = TickqOptions<JobRegistry, OrderedRegistry, WorkflowInputs>;

/** What is stored for the prefix, and the cluster's slot map; writes nothing. */
export async function readShape(
  options: AnyOptions,
  logger: JobLogger = console,
): Promise<{ probe: Runtime; stored: StoredLayout; ranges: SlotRange[] }> {
  const prefix = options.prefix ?? "tickq:";
  // A runtime only to run one-key scripts; its tagged prefix satisfies the cluster check and is never written.
  const probe = createRuntime({
    redis: options.redis,
    prefix: `${prefix}{partitions}:`,
    jobs: {},
    logger,
    ...(options.redisTimeoutMs === undefined ? {} : { redisTimeoutMs: options.redisTimeoutMs }),
  });
  const shape = await runCall(probe, protocol.partition_shape, { meta: metaKey(prefix) }, {});
  return { probe, stored: readStored(shape.stored), ranges: shape.ranges };
}

/** The count the cluster's shape asks for (countForShape), with a warning when no count spreads evenly. */
export function countFromShape(ranges: readonly SlotRange[], prefix: string, logger: JobLogger): number {
  if (ranges.length === 0)
    throw new TickqError(
      "BAD_OPTIONS",
      `partitions: "auto" could not read the cluster's slots (CLUSTER SLOTS: one Redis has none) and no count is stored under ${JSON.stringify(prefix)}: ` +
        `give the count instead, partitions: N (N a multiple of the masters, docs/operate/cluster.md)`,
    );
  const { count, masters, even } = countForShape(ranges);
  if (!even)
    logger.warn(
      `tickq: partitions: "auto" found no count up to 8 a master that spreads evenly over this cluster's ${masters} masters ` +
        `(its slots are split unevenly); using ${count}. Rebalance the slots (redis-cli --cluster rebalance) before the first start, or give partitions: N.`,
    );
  return count;
}

/** The count `partitions: "auto"` runs with: the stored one, else one chosen from the cluster's slots and stored. */
export async function findPartitionCount(options: AnyOptions, logger: JobLogger = console): Promise<number> {
  const prefix = options.prefix ?? "tickq:";
  const { probe, stored, ranges } = await readShape(options, logger);
  const known = (layout: StoredLayout): number | undefined => {
    if (layout.kind === "moving") refuseMoving(prefix, 'partitions: "auto"', layout);
    if (layout.kind === "count" && layout.count === 1) refuseOne(prefix);
    return layout.kind === "count" ? layout.count : undefined;
  };
  const count = known(stored);
  if (count !== undefined) {
    warnIfMastersIdle(ranges, count, prefix, logger);
    return count;
  }
  const chosen = countFromShape(ranges, prefix, logger);
  return known(readStored(await runCall(probe, protocol.partitions, { meta: metaKey(prefix) }, { count: chosen })))!;
}

/** A migration moved the keys back to one partition: "auto" would spread them again over an empty layout. */
function refuseOne(prefix: string): never {
  throw new TickqError(
    "BAD_OPTIONS",
    `partitions: "auto", but the keys under prefix ${JSON.stringify(prefix)} were moved to one partition (${metaKey(prefix)} holds 1): ` +
      `start with partitions: 1 and the prefix they were moved to, or move them back with \`tickq --cluster partitions migrate --partitions auto --prefix ${prefix}\` (docs/operate/cluster.md).`,
  );
}

/** A stored count is kept even when the cluster has changed since; say so when some master serves none of it. */
function warnIfMastersIdle(ranges: readonly SlotRange[], count: number, prefix: string, logger: JobLogger): void {
  if (ranges.length === 0) return;
  const per = partitionsPerMaster(ranges, count);
  const idle = [...per.values()].filter((n) => n === 0).length;
  if (idle > 0)
    logger.warn(
      `tickq: the keys are laid out in ${count} partitions (stored), and ${idle} of the cluster's ${per.size} masters serve none of them: ` +
        `they take no part in tickq's work. Move slots so each master serves a partition's slot (redis-cli --cluster reshard), ` +
        `or move the jobs to more partitions: stop the deployment, \`tickq --cluster partitions migrate --partitions auto --prefix ${prefix}\` (docs/operate/cluster.md).`,
    );
}

/** Refuses at createTickq what "auto" cannot do: a prefix with a hash tag puts every partition in one slot. */
export function checkAutoPrefix(prefix: string): void {
  if (hashTagOf(prefix) !== undefined)
    throw new TickqError(
      "BAD_OPTIONS",
      `partitions: "auto" on a cluster spreads the keys over its masters, each partition under its own hash tag, ` +
        `but prefix ${JSON.stringify(prefix)} has one, which would put them all in one slot. ` +
        `Drop the tag (prefix: ${JSON.stringify(prefix.replace(/\{([^}]*)\}/g, "$1") || "tickq:")}), or keep one slot with partitions: 1`,
    );
}

interface Listening {
  event: TickqEventName;
  listener: TickqListener<TickqEventName>;
  off?: () => void;
}

/** The methods of each of Tickq's API objects, checked against their interfaces by the compiler. */
const JOBS = {
  find: 1,
  list: 1,
  retry: 1,
  retryAll: 1,
  delete: 1,
  deleteAll: 1,
  runNow: 1,
  cancel: 1,
  cancelOrdered: 1,
  result: 1,
} satisfies Record<keyof AnyTickq["jobs"], 1>;
const QUEUES = { list: 1, pause: 1, resume: 1 } satisfies Record<keyof AnyTickq["queues"], 1>;
const METRICS = { query: 1, prometheus: 1 } satisfies Record<keyof AnyTickq["metrics"], 1>;
const WORKFLOWS = {
  start: 1,
  startBulk: 1,
  startAndWait: 1,
  sendEvent: 1,
  get: 1,
  result: 1,
  list: 1,
  cancel: 1,
  check: 1,
  retry: 1,
  fork: 1,
  retryAll: 1,
} satisfies Record<keyof AnyTickq["workflows"], 1>;
const CALLS = {
  enqueue: 1,
  enqueueAndWait: 1,
  enqueueBulk: 1,
  enqueueOrdered: 1,
  enqueueOrderedBulk: 1,
  tick: 1,
  reserveTicks: 1,
} satisfies Partial<Record<keyof AnyTickq, 1>>;

type Method = (...args: unknown[]) => Promise<unknown>;

/** An object whose methods wait for the built Tickq, then call the same method of what `pick` takes from it. */
function forwarding(names: object, pick: () => Promise<Record<string, unknown>>): Record<string, Method> {
  return Object.fromEntries(
    Object.keys(names).map((name) => [
      name,
      async (...args: unknown[]) => {
        const target = await pick();
        return (target[name] as Method).apply(target, args);
      },
    ]),
  );
}

export function createAutoPartitioned<J extends JobRegistry, O extends OrderedRegistry, W extends WorkflowInputs>(
  options: TickqOptions<J, O, W>,
  makeCore: CoreFactory,
): Tickq<J, O, W> {
  const prefix = options.prefix ?? "tickq:";
  checkAutoPrefix(prefix);
  const middleware: Middleware[] = [];
  const listening = new Set<Listening>();
  let built: AnyTickq | undefined;
  let building: Promise<AnyTickq> | undefined;
  const root = (): Promise<AnyTickq> => {
    if (built) return Promise.resolve(built);
    building ??= (async () => {
      const count = await findPartitionCount(options as AnyOptions, options.logger ?? console);
      const tickq = makeCore({ ...(options as AnyOptions), partitions: count });
      for (const m of middleware) tickq.use(m);
      for (const l of listening) l.off = tickq.on(l.event, l.listener as never);
      built = tickq;
      return tickq;
    })().catch((error: unknown) => {
      building = undefined; // asked again at the next call (a refusal is refused again)
      throw error;
    });
    return building;
  };

  const build = (get: () => Promise<AnyTickq>): AnyTickq => {
    const asRecord = async () => (await get()) as unknown as Record<string, unknown>;
    const part = (name: "jobs" | "queues" | "metrics" | "workflows") => async () =>
      (await get())[name] as unknown as Record<string, unknown>;
    const history = async (days?: number) => (await get()).stats.history(days);
    const tickq = {
      ...forwarding(CALLS, asRecord),
      stats: Object.assign(async () => (await get()).stats(), { history }),
      ticks: Object.assign(async () => (await get()).ticks(), { recent: async () => (await get()).ticks.recent() }),
      schedules: Object.assign(async () => (await get()).schedules(), {
        pause: async (name: string) => (await get()).schedules.pause(name),
        resume: async (name: string) => (await get()).schedules.resume(name),
        runNow: async (name: string) => (await get()).schedules.runNow(name),
      }),
      jobs: forwarding(JOBS, part("jobs")),
      queues: forwarding(QUEUES, part("queues")),
      metrics: forwarding(METRICS, part("metrics")),
      workflows: forwarding(WORKFLOWS, part("workflows")),
      scope(more: KickScope) {
        let scoped: Promise<AnyTickq> | undefined;
        return build(() => (scoped ??= get().then((t) => t.scope(more))));
      },
      on(event: TickqEventName, listener: TickqListener<TickqEventName>) {
        if (!EVENT_NAMES.includes(event))
          throw new TickqError(
            "BAD_ARGS",
            `on: unknown event ${JSON.stringify(event)}; events are ${EVENT_NAMES.join(", ")}`,
          );
        const entry: Listening = { event, listener };
        listening.add(entry);
        if (built) entry.off = built.on(event, listener as never);
        return () => {
          listening.delete(entry);
          entry.off?.();
        };
      },
      use(m: Middleware) {
        middleware.push(m);
        built?.use(m);
        return tickq;
      },
      guards: {
        blockedFor: async (client: string) => (await get()).guards.blockedFor(client),
        failed: async (client: string) => (await get()).guards.failed(client),
        endSession: async (nonce: string, ms: number) => (await get()).guards.endSession(nonce, ms),
        sessionEnded: async (nonce: string) => (await get()).guards.sessionEnded(nonce),
      },
      prefix,
      /** 0 until the first call has found the count. */
      get partitions() {
        return built?.partitions ?? 0;
      },
    } as unknown as AnyTickq;
    return tickq;
  };
  return build(root) as unknown as Tickq<J, O, W>;
}
