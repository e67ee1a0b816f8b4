// migratePartitions: moves the jobs of a layout in N partitions into M (N, M
// ≥ 1, N ≠ M), dead, retry, scheduled and queued, a page at a time
// (move.ts). Before it moves a job it marks the count key "N>M id"
// (partition_move_begin.lua), so every tickq that starts meanwhile, with
// either count, is refused naming the fix; only once a run has moved every
// job does it store M (partition_move_finish.lua). A run cut anywhere, even
// between the last move and storing M, leaves the mark: run again, it moves
// what is left (nothing, then) and stores M. Ordered ids, workflow runs and
// running jobs are not moved, nor flow jobs parked on a busy key: a move is
// refused before its mark while the old layout holds any (they would never run
// in the new one), unless `leave` says to leave them; the report lists what is left.
import { newJid } from "../job/codec.js";
import { TickqError } from "../errors.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import { createRuntime, type TickqRuntime } from "../runtime.js";
import { jobsApi, queuesApi } from "../jobs-api.js";
import { readStats } from "../stats/read.js";
import type { Runtime } from "../tick/runtime.js";
import { logSink, textFace } from "../telemetry/logger.js";
import type { JobInfo } from "../admin/types.js";
import type { JobLogger } from "../job/context.js";
import type { JobRegistry } from "../job/definition.js";
import type { RedisAdapter } from "../redis/types.js";
import type { Stats } from "../stats/types.js";
import { checkPartitionCount, partitionOf, partitionPrefixes } from "./layout.js";
import { countFromShape, readShape } from "./auto.js";
import { mergeStats } from "./merge.js";
import { leftInLayout, metaKey, readStored } from "./meta.js";
import { carryJids } from "./carry-jids.js";
import { type Moved, moveJobs, type Source } from "./move.js";
import { type DeadSet, moveOrderedDead } from "./move-ordered-dead.js";
import { routeKeyOf, routeKeyOfStored } from "./route.js";

/** How to be rid of what a migration does not move, in the old layout. */
const CANCEL_THERE = "`tickq jobs cancel --ordered NAME ID`, `tickq workflows cancel RUN_ID`";

/** Options of {@link migratePartitions}. */
export interface MigratePartitionsOptions {
  /** The Redis both layouts live in (a cluster client for a cluster). */
  redis: RedisAdapter;
  /** The partition count to move to, or "auto": the one found from the cluster's shape (docs/operate/cluster.md). */
  partitions: number | "auto";
  /** The count to move from; default the one stored under `prefix` (1 when none is). */
  fromPartitions?: number;
  /** The partitioned layouts' prefix, without a hash tag; default "tickq:". */
  prefix?: string;
  /** Moving from one partition: its prefix; default `prefix` (on a cluster: the old prefix with its hash tag, such as "{tq}:"). */
  from?: string;
  /** Moving to one partition: its prefix; default `prefix` (on a cluster: one with a hash tag, such as "{tq}:"). */
  to?: string;
  /**
   * The deployment's jobs: a job named here is routed by its flow or debounce key, as enqueue
   * routes it. Without them, a flow job is routed by the key its stored form carries (one over
   * 256 characters is kept hashed: such a job is refused, naming this option), any other by its jid.
   */
  jobs?: JobRegistry;
  /** Jobs read and moved per page; default 500. */
  batch?: number;
  /** Where warnings go; default console. */
  logger?: JobLogger;
  /**
   * Move the jobs though the old layout still holds ordered ids, workflow runs, running jobs or flow jobs parked on busy keys,
   * which a migration does not move: they stay there, and the new deployment does not run them.
   * Default false: such a migration is refused before anything moves, naming what is there.
   */
  leave?: boolean;
}

/** What {@link migratePartitions} moved, and what it left in the old layout. */
export interface MigrationReport {
  /** The partition count the jobs moved into (the one found, with `partitions: "auto"`). */
  partitions: number;
  /** The partition count they moved from. */
  fromPartitions: number;
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
    /** Dead entries of ordered jobs (`o:NAME:dead`), each into its id's partition. */
    orderedDead: number;
  };
  /** Jobs left where they were: their partition in the new layout is the key space they were in (both counts' partitions share its hash tag). */
  stayed: number;
  /** What stays in the old layout, in words (ordered ids, workflow runs, parked flow jobs, running jobs); empty when nothing does. */
  left: string[];
}

/** What a run does: from and to counts, and the mark it stores the new count over (none: a sweep of a finished move). */
interface Plan {
  from: number;
  to: number;
  mark?: string;
  adopted: string;
}

/**
 * Moves waiting, scheduled, retry and dead jobs from a layout in N partitions into `partitions`
 * partitions, then stores the new count, so the new deployment starts. Stop the old deployment first.
 * @example
 * const report = await migratePartitions({ redis, prefix: "tq:", partitions: 6 }); // from the stored count
 */
export async function migratePartitions(options: MigratePartitionsOptions): Promise<MigrationReport> {
  const prefix = options.prefix ?? "tickq:";
  // Its own lines name jids and queues read from Redis: printable, as every tickq line (src/telemetry/logger.ts).
  const logger = textFace(logSink(options.logger ?? console, undefined));
  const runtimeOf = (p: string) => createRuntime({ redis: options.redis, prefix: p, jobs: {}, logger });
  // Each side's prefixes are checked (a cluster needs a tagged one) before anything is marked.
  const targetsOf = (to: number) => layout(prefix, to, options.to, "to").map(runtimeOf);
  const sourcesOf = (from: number) => layout(prefix, from, options.from, "from").map((p) => oldPartition(runtimeOf(p)));
  // On one Redis a one-partition layout shares the prefix, and a partitioned tickq refuses to start
  // while it holds anything (meta.ts refuseLegacy): there, leaving work behind would block the new deployment.
  const sharesPrefix = (from: number) => !options.redis.cluster && from === 1 && (options.from ?? prefix) === prefix;
  const mayLeave = (from: number) => options.leave === true && !sharesPrefix(from);
  const plan = await begin(options, prefix, logger, async (from, to, fresh) => {
    targetsOf(to);
    const old = sourcesOf(from);
    // Refused here, `leave` was refused too: the layouts share the prefix.
    if (fresh && !mayLeave(from)) await refuseUnmovable(old, runtimeOf, options.leave === true);
  });
  const targets = targetsOf(plan.to);
  const sources = sourcesOf(plan.from);
  const { moved, stayed, held } = await moveJobs({
    sources,
    targets,
    route: (job) => targetOf(options.jobs ?? {}, job, targets.length),
    adopted: plan.adopted,
    batch: options.batch ?? 500,
    logger,
  });
  const kept = new Set(targets.map((t) => t.prefix));
  const leaving = sources.filter((s) => !kept.has(s.prefix)).map((s) => runtimeOf(s.prefix));
  const orderedDead = await moveOrderedDead({
    sources: await Promise.all(
      leaving.map(async (runtime) => ({ runtime, deadSets: (await unmovableOf(runtime)).deadSets })),
    ),
    targets,
    adopted: plan.adopted,
    batch: options.batch ?? 500,
  });
  await carryJids(
    sources.map((s) => s.runtime),
    targets,
    options.batch ?? 500,
  );
  if (held.jobs > 0) refuseHeld(held, plan);
  const { left, movable, unmovable } = await leftBehind(sources, kept, runtimeOf);
  if (plan.mark !== undefined) {
    // The new count goes in only over a layout with nothing left to move: else its jobs would never run.
    if (movable > 0)
      throw new TickqError(
        "BAD_OPTIONS",
        `migratePartitions: ${movable} jobs came into the old layout while it moved (${left.join(", ")}): ` +
          `stop the old deployment's enqueues and ticks, then run the migration again to finish it.`,
      );
    // Nor over what it cannot move, unless told: they came in while it moved (an old client still
    // enqueueing), or an earlier run of this move was told to leave them; `leave` is said each run.
    if (unmovable.length > 0 && !mayLeave(plan.from))
      throw new TickqError(
        "BAD_OPTIONS",
        `migratePartitions: the old layout still holds ${unmovable.join(", ")}, which a migration does not move ` +
          "(they came in while it moved, or an earlier run of this move was told to leave them): the new layout " +
          `would never run them. The count key stays marked, so no partitioned tickq starts on prefix ${JSON.stringify(prefix)} ` +
          "(a partitions: 1 one reads no count: keep the old deployment stopped). " +
          (sharesPrefix(plan.from)
            ? "On one Redis they cannot be left: the new deployment would refuse to start while the old layout holds them. " +
              `Cancel them there (${CANCEL_THERE}), then run the migration again.`
            : `Run the migration again with leave: true (CLI: --leave) to store ${plan.to} and leave them where they are.`),
      );
    await finish(targets[0]!, prefix, plan.mark, plan.to);
  }
  return { partitions: plan.to, fromPartitions: plan.from, moved: { ...moved, orderedDead }, stayed, left };
}

/** Some jobs stayed as running jobs of the old layout hold slots of their keys: the move is not done. */
function refuseHeld(held: Moved["held"], plan: Plan): never {
  const keys =
    held.keys
      .slice(0, 5)
      .map((k) => JSON.stringify(k))
      .join(", ") + (held.keys.length > 5 ? ", …" : "");
  throw new TickqError(
    "BAD_OPTIONS",
    `migratePartitions: ${held.jobs} jobs were not moved: a running job of the old layout holds a slot of their concurrency key or unique key (${keys}), ` +
      "and in the new layout they could start beside it. Everything else was moved" +
      (plan.mark === undefined
        ? ". "
        : `; the count key stays marked, so no partitioned tickq starts before the move is done. `) +
      `Let the old deployment's ticks finish the running jobs (or cancel them there, ${CANCEL_THERE}, \`tickq jobs cancel JID\`), ` +
      `then run the migration again.`,
  );
}

async function begin(
  options: MigratePartitionsOptions,
  prefix: string,
  logger: JobLogger,
  /** Checks both layouts before the mark; `fresh`: this run would start a move (not resume a marked one, nor sweep). */
  check: (from: number, to: number, fresh: boolean) => Promise<void>,
): Promise<Plan> {
  const asked = options.fromPartitions === undefined ? 0 : checkPartitionCount(options.fromPartitions);
  const { probe, stored, ranges } = await readShape({ redis: options.redis, prefix, jobs: {} }, logger);
  const to =
    options.partitions !== "auto"
      ? checkPartitionCount(options.partitions)
      : stored.kind === "moving"
        ? stored.to
        : countFromShape(ranges, prefix, logger);
  if (asked === to)
    throw new TickqError(
      "BAD_OPTIONS",
      `migratePartitions: fromPartitions and partitions are both ${to}: nothing to move`,
    );
  const likely = asked || (stored.kind === "count" ? stored.count : stored.kind === "moving" ? stored.from : 1);
  // On a cluster a one-partition layout has a prefix of its own: with none given there is nothing to sweep.
  if (likely === to && options.redis.cluster && options.from === undefined) alreadyThere(prefix, to);
  // A sweep (`to` stored already) starts no move: the new deployment may run, in the partitions both
  // layouts share, ordered ids and jobs of its own, and what an earlier run left stays left.
  const sweep = stored.kind === "count" && stored.count === to;
  await check(likely === to ? 1 : likely, to, likely !== to && stored.kind !== "moving" && !sweep);
  const value = await runCall(
    probe,
    protocol.partition_move_begin,
    { meta: metaKey(prefix) },
    { from: asked, to, id: newJid() },
  );
  const now = readStored(value);
  if (now.kind === "moving") {
    if (now.to !== to || (asked !== 0 && asked !== now.from))
      throw new TickqError(
        "BAD_OPTIONS",
        `migratePartitions: a migration from ${now.from} to ${now.to} partitions is under way under prefix ${JSON.stringify(prefix)}, or was cut ` +
          `(${metaKey(prefix)}): finish it first, \`tickq partitions migrate --partitions ${now.to} --prefix ${prefix}\`.`,
      );
    return { from: now.from, to, mark: now.mark, adopted: `adopted:${now.id}` };
  }
  const count = now.kind === "count" ? now.count : 1;
  if (count !== to)
    throw new TickqError(
      "BAD_OPTIONS",
      `migratePartitions: fromPartitions: ${asked}, but the keys under prefix ${JSON.stringify(prefix)} are laid out in ${count} partitions ` +
        `(${metaKey(prefix)}): use fromPartitions: ${count} (--from-partitions ${count}), or leave it out.`,
    );
  // Laid out in `to` already: move what is left in an old layout again (a one-partition one unless
  // told), without a mark, as the new deployment may be running; the sets of a sweep are its own.
  const from = asked || 1;
  if (from === to) alreadyThere(prefix, to);
  return { from, to, adopted: "adopted" };
}

function alreadyThere(prefix: string, to: number): never {
  throw new TickqError(
    "BAD_OPTIONS",
    `migratePartitions: the keys under prefix ${JSON.stringify(prefix)} are laid out in ${to} partitions already: nothing to move ` +
      `(to sweep an old layout again: its count, fromPartitions or --from-partitions N; a one-partition one's prefix, from or --from).`,
  );
}

async function finish(runtime: Runtime, prefix: string, mark: string, to: number): Promise<void> {
  const value = await runCall(runtime, protocol.partition_move_finish, { meta: metaKey(prefix) }, { mark, to });
  if (value !== String(to))
    throw new TickqError(
      "BAD_OPTIONS",
      `migratePartitions: the count key ${metaKey(prefix)} holds ${JSON.stringify(value)} instead of this migration's mark: was another one started?`,
    );
}

/** The prefixes of a layout: one partition under its own prefix (`own`, default `prefix`), N under `prefix`. */
function layout(prefix: string, count: number, own: string | undefined, option: "from" | "to"): string[] {
  if (count === 1) return [own ?? prefix];
  if (own !== undefined && own !== prefix)
    throw new TickqError(
      "BAD_OPTIONS",
      `migratePartitions: \`${option}\` names a one-partition layout's prefix, but that side has ${count} partitions, under prefix ${JSON.stringify(prefix)}`,
    );
  return partitionPrefixes(prefix, count);
}

/**
 * A job's new partition: by its definition in `jobs` when given there, else by the flow key its
 * stored descriptor carries (so the CLI, which has no job definitions, routes flow jobs as
 * enqueue does), else by its jid.
 */
function targetOf(jobs: JobRegistry, job: JobInfo, count: number): number {
  if (Object.hasOwn(jobs, job.name)) {
    const key = routeKeyOf(jobs, {
      name: job.name,
      args: Array.isArray(job.job.args) ? job.job.args : [],
      jid: job.jid,
    });
    return partitionOf(key ?? job.jid, count);
  }
  const stored = routeKeyOfStored(job.raw);
  if (stored === null)
    throw new TickqError(
      "BAD_OPTIONS",
      `migratePartitions: job ${job.jid} (${job.name}) has a flow key too long to be stored whole: pass the deployment's jobs ` +
        "(`jobs`, or `--jobs ./jobs.js` on the CLI) so it goes to the partition its key hashes to",
    );
  return partitionOf(stored ?? job.jid, count);
}

type Old = Source & { stats(): Promise<Stats> };

/** A partition of the old layout as a move reads it: its jobs and queues APIs and its stats (no tick runs). */
function oldPartition(runtime: TickqRuntime): Old {
  return {
    prefix: runtime.prefix,
    runtime,
    jobs: jobsApi(runtime),
    queues: queuesApi(runtime),
    stats: () => readStats(runtime),
  };
}

/**
 * Refuses a move while the old layout holds what a migration does not move: its ordered ids
 * (waiting, backing off or running), workflow runs not ended, flow jobs parked on busy keys and running jobs would stay there, and no tick of the
 * new layout would run them (nor, in a partition both layouts share, keep a new job of the same
 * ordered id from running beside them). Checked before the mark, so the old deployment can still
 * finish them; a run that resumes a marked move is checked before it stores the new count instead.
 */
async function refuseUnmovable(
  sources: Old[],
  runtimeOf: (prefix: string) => Runtime,
  leaveRefused: boolean,
): Promise<void> {
  const { words, orderedNames } = await unmovableIn(sources, runtimeOf);
  if (words.length === 0) return;
  const where =
    sources.length === 1 ? `under prefix ${JSON.stringify(sources[0]!.prefix)}` : `in ${sources.length} partitions`;
  // The names, as nothing else tells them: `tickq stats` is given none, so it shows no ordered id.
  const shown = orderedNames.slice(0, 5).join(", ") + (orderedNames.length > 5 ? ", …" : "");
  const held = words.map((w) => (w.endsWith(" ordered ids") ? `${w} (${shown})` : w));
  throw new TickqError(
    "BAD_OPTIONS",
    `migratePartitions: the old layout ${where} still holds ${held.join(", ")}, which a migration does not move: ` +
      `the new layout would never run them. Let the old deployment's ticks finish them, or cancel them there (${CANCEL_THERE}), ` +
      "then run the migration again (the old deployment's stats(), given its job, ordered and workflow names, shows them; `tickq stats` shows the " +
      'running jobs only, as "in process", and `tickq workflows list` the runs); ' +
      (leaveRefused
        ? "leave: true cannot help here: on one Redis the one-partition layout shares the prefix, and the new " +
          "deployment would refuse to start while it holds them. "
        : "or pass leave: true (CLI: --leave) to move the rest and leave them where they are (a run that waits " +
          "for an event for months, say). ") +
      "Nothing was moved.",
  );
}

/**
 * In words, what a migration does not move from `sources`: ordered ids, workflow runs not ended,
 * parked flow jobs, running jobs; and the names of those ordered ids.
 */
async function unmovableIn(
  sources: Old[],
  runtimeOf: (prefix: string) => Runtime,
): Promise<{ words: string[]; orderedNames: string[]; deadEntries: Map<string, number> }> {
  // stats() sees only the ordered and workflow names it is given, and a migration is given none: they are read from Redis.
  const [stats, found] = await Promise.all([
    Promise.all(sources.map((s) => s.stats())),
    Promise.all(sources.map((s) => unmovableOf(runtimeOf(s.prefix)))),
  ]);
  const orderedIds = found.reduce((sum, f) => sum + f.orderedIds, 0);
  const runs = found.reduce((sum, f) => sum + f.runs, 0);
  const parked = found.reduce((sum, f) => sum + f.parked, 0);
  const inflight = stats.reduce((sum, s) => sum + s.inflight, 0);
  const words = [
    ...(orderedIds > 0 ? [`${orderedIds} ordered ids`] : []),
    ...(runs > 0 ? [`${runs} workflow runs`] : []),
    ...(parked > 0 ? [`${parked} flow jobs parked on busy keys`] : []),
    ...(inflight > 0 ? [`${inflight} running jobs`] : []),
  ];
  const deadEntries = new Map(sources.map((s, i) => [s.prefix, found[i]!.deadEntries]));
  return { words, orderedNames: [...new Set(found.flatMap((f) => f.names))].sort(), deadEntries };
}

/**
 * The ordered ids (waiting, backing off or running) and the keys of the dead sets, the workflow runs not ended and the flow
 * jobs parked in one partition, whatever their names: partition_unmovable.lua scans for the ordered
 * keys a page a call.
 */
async function unmovableOf(runtime: Runtime): Promise<{
  orderedIds: number;
  runs: number;
  parked: number;
  names: string[];
  deadSets: DeadSet[];
  deadEntries: number;
}> {
  // SCAN may return a key on two pages: each counts once.
  const sizes = new Map<string, number>();
  let cursor = "0";
  let runs = 0;
  let parked = 0;
  do {
    const page = await runCall(
      runtime,
      protocol.partition_unmovable,
      { counts: `${runtime.prefix}wf:counts`, waiting: `${runtime.prefix}flow:waiting` },
      { cursor },
    );
    if (cursor === "0") (runs = page.runs), (parked = page.parked);
    for (const { key, size } of page.found) sizes.set(key, size);
    cursor = page.cursor;
  } while (cursor !== "0");
  let orderedIds = 0;
  const names = new Set<string>();
  const deadSets: DeadSet[] = [];
  let deadEntries = 0;
  for (const [key, size] of sizes) {
    // o:NAME:WHAT under the prefix (a name holds no ':'). Dead entries are records a migration moves.
    const name = key.slice(runtime.prefix.length).split(":")[1]!;
    if (key.endsWith(":dead")) {
      deadSets.push({ key, name });
      deadEntries += size;
      continue;
    }
    orderedIds += size;
    names.add(name);
  }
  return { orderedIds, runs, parked, names: [...names], deadSets, deadEntries };
}

/**
 * What the old layout still holds: in its partitions that are not in the new layout, the jobs of
 * the moved states; in all of them, the ordered ids, workflow runs, parked flow jobs and running jobs.
 * `movable`: jobs of the moved states still in partitions that are not in the new layout.
 */
async function leftBehind(
  sources: Old[],
  kept: Set<string>,
  runtimeOf: (prefix: string) => Runtime,
): Promise<{ left: string[]; movable: number; unmovable: string[] }> {
  const moving = sources.filter((s) => !kept.has(s.prefix));
  const [all, { words: unmovable, deadEntries }] = await Promise.all([
    Promise.all(moving.map((s) => s.stats())),
    unmovableIn(sources, runtimeOf),
  ]);
  if (all.length === 0) return { left: unmovable, movable: 0, unmovable };
  const stats = mergeStats(all);
  const dead = moving.reduce((sum, s) => sum + (deadEntries.get(s.prefix) ?? 0), 0);
  const movable = Object.values(stats.queues).reduce(
    (a, b) => a + b,
    stats.scheduled + stats.retry + stats.dead + dead,
  );
  const jobs = [
    ...leftInLayout({ ...stats, inflight: 0, ordered: {}, workflows: {} }),
    ...(dead > 0 ? [`${dead} dead ordered entries`] : []),
  ];
  return { left: [...jobs, ...unmovable], movable, unmovable };
}
