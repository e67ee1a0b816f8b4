// begin's ARGV and KEYS by name for tests that call the scripts directly (the
// rest of a tick's calls: tick-calls.ts), and two readers of raw parts: the
// acks as they sit in ARGV (a test of their bytes) and a raw reply's fetched jobs.
import { decodePart, encodePart } from "../../src/protocol/define.js";
import type * as protocol from "../../src/protocol/index.js";
import { acks, fetched } from "../../src/protocol/sections.js";
import { orderedArgs } from "../../src/ordered/work.js";
import { ackArgs, type AckTrailersOf, type Outcome } from "../../src/tick/passes/ack.js";
import { readFetched, type FetchedGroups, type FetchedJob } from "../../src/tick/passes/fetch.js";
import type { RedisReply } from "../../src/redis/types.js";
import type { ResultSettings } from "../../src/results/settings.js";
import type { MetricsSettings } from "../../src/metrics/settings.js";
import { resultsTrailer } from "../../src/results/in-tick.js";
import { metricsSection } from "../../src/metrics/section.js";

type ArgsOfCall<C> = C extends { types?: { args: infer A } } ? A : never;
type KeysOfCall<C> = C extends { types?: { keys: infer K } } ? K : never;

export interface BeginOptions {
  tick: string;
  leaseMs: number;
  deadMaxSize?: number;
  deadMaxAgeSec?: number;
  queues?: string[];
  batch?: number;
  resurrectLimit?: number;
  lockMs?: number;
  scanLimit?: number;
  scheduleLimit?: number;
  /** Recurring: the declaration digest, how many due schedules to answer, the clock shift. */
  digest?: string;
  dueLimit?: number;
  shiftMs?: number;
  /** Ordered names this tick serves (none: the part is left out). */
  ordered?: string[];
  /** As a Sidekiq process: its `info` JSON (the process keys are then given too). */
  info?: string;
  /** Workflow runs to claim (default -1: the app declares no workflow). */
  workflowClaim?: number;
  /** Workflow runs begin creates before its claim (startAndWait's tick); default none. */
  starts?: { id: string; name: string; input: string; version: number }[];
}

/** begin's ARGV by name, from the options a test sets (the rest defaulted). */
export function beginNamed(o: BeginOptions): ArgsOfCall<typeof protocol.begin> {
  const queues = o.queues ?? ["default"];
  return {
    tickId: o.tick,
    leaseMs: o.leaseMs,
    deadMaxSize: o.deadMaxSize ?? 100,
    deadMaxAgeSec: o.deadMaxAgeSec ?? 3_600,
    registration: `0 ${o.leaseMs} ${queues.join(" ")}`,
    housekeep: {
      resurrectLimit: o.resurrectLimit ?? 100,
      lockMs: o.lockMs ?? o.leaseMs,
      scanLimit: o.scanLimit ?? 100,
      scheduleLimit: o.scheduleLimit ?? 100,
    },
    askPolicy: false,
    recurring: { digest: o.digest ?? "", dueLimit: o.dueLimit ?? 0, shiftMs: o.shiftMs ?? 0 },
    workflows: { claim: o.workflowClaim ?? -1, retentionMs: 60_000 },
    starts: o.starts ?? [],
    info: o.info,
    fetch: { batch: o.batch ?? 10, queues, picks: [] },
    ordered: o.ordered ? orderedArgs(o.ordered) : undefined,
  };
}

/** begin's KEYS by name: as a Sidekiq process (`info` given), its process keys too. */
export function beginKeys(o: BeginOptions): KeysOfCall<typeof protocol.begin> {
  const process = o.info === undefined ? undefined : { heartbeat: "h", work: "w", workers: "ws" };
  return { ticks: "ticks", lease: `tick:${o.tick}`, process };
}

/** The acks part of a step or finish, flat, through src/protocol. */
export function ackArgv(
  outcomes: Outcome[],
  results?: ResultSettings,
  progress?: [string, string][],
  metrics?: MetricsSettings,
): (string | number)[] {
  return encodePart(acks, ackArgs(outcomes, ackTrailersOf(results, progress, metrics)));
}

/** The acks' trailers as a tick's results and metrics capabilities add them (src/results/in-tick.ts, src/metrics/in-tick.ts). */
export function ackTrailersOf(
  results?: ResultSettings,
  progress?: [string, string][],
  metrics?: MetricsSettings,
): AckTrailersOf {
  return (outcomes, inAckOrder, others) => {
    const measured = metricsSection(inAckOrder, others, metrics);
    return {
      ...(results && resultsTrailer(outcomes, inAckOrder, results, progress)),
      ...(measured && { metrics: measured }),
    };
  };
}

/** The fetched jobs of a raw reply's fetch groups, decoded through src/protocol. */
export function fetchedJobs(groups: RedisReply | undefined): FetchedJob[] {
  return readFetched(decodePart(fetched, groups ?? []) as FetchedGroups);
}
