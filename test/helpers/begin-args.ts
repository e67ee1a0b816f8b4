// Tick calls' ARGV for tests that call the scripts directly, encoded through
// src/protocol (the tick's own declaration), so a test names what it sets.
import { decodePart, encode, encodePart } from "../../src/protocol/define.js";
import * as protocol from "../../src/protocol/index.js";
import { acks, fetched, ordered, orderedFetched } from "../../src/protocol/sections.js";
import { orderedArgs, type OrderedOutcome } from "../../src/ordered/work.js";
import { ackArgs, type Outcome } from "../../src/tick/passes/ack.js";
import { readFetched, type FetchedGroups, type FetchedJob } from "../../src/tick/passes/fetch.js";
import { readOrderedFetched, type OrderedFetched, type OrderedGroup } from "../../src/ordered/work.js";
import type { RedisReply } from "../../src/types.js";

type ArgsOfCall<C> = C extends { types?: { args: infer A } } ? A : never;
type KeysOfCall<C> = C extends { types?: { keys: infer K } } ? K : never;
import type { ResultSettings } from "../../src/results/settings.js";

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

/** ARGV after the prefix, encoded (for a test that needs the call's raw ARGV). */
export function beginArgs(o: BeginOptions): (string | number)[] {
  return encode(protocol.begin, beginKeys(o), beginNamed(o)).args;
}

/** The acks part of a step or finish, flat, through src/protocol. */
export function ackArgv(
  outcomes: Outcome[],
  results?: ResultSettings,
  progress?: [string, string][],
): (string | number)[] {
  return encodePart(acks, ackArgs(outcomes, results, progress));
}

/** The ordered part of a tick call, flat, through src/protocol (none for no names). */
export function orderedArgv(names: string[], outcomes?: OrderedOutcome[]): (string | number)[] {
  const part = orderedArgs(names, outcomes);
  return part === undefined ? [] : encodePart(ordered.item, part);
}

/** The fetched jobs of a raw reply's fetch groups, decoded through src/protocol. */
export function fetchedJobs(groups: RedisReply | undefined): FetchedJob[] {
  return readFetched(decodePart(fetched, groups ?? []) as FetchedGroups);
}

/** The ordered ids of a raw reply's ordered groups, decoded through src/protocol. */
export function orderedIds(groups: RedisReply | undefined): OrderedFetched[] {
  return readOrderedFetched(decodePart(orderedFetched, groups ?? []) as OrderedGroup[]);
}
