// A tick's calls (begin, step, finish, housekeep, extend) and enqueue, with
// their arguments built by name through src/protocol, for tests that call
// the scripts directly: a test names what it sets and leaves the rest to
// these defaults, and reads replies by field (`reply.fetched`), never by index.
import { type ArgOf, type ArgsOf, encode, type KeysOf, type TypedCall } from "../../src/protocol/define.js";
import type * as protocol from "../../src/protocol/index.js";
import type { acks } from "../../src/protocol/sections.js";
import {
  type OrderedFetched,
  type OrderedGroup,
  type OrderedOutcome,
  orderedArgs,
  readOrderedFetched,
} from "../../src/ordered/work.js";
import { ackArgs, type Outcome } from "../../src/tick/passes/ack.js";
import { type FetchedGroups, type FetchedJob, readFetched } from "../../src/tick/passes/fetch.js";
import type { Commit } from "../../src/workflows/execute.js";

/** The named ARGV of a declared call. */
export type ArgsOfCall<C> = C extends { types?: { args: infer A } } ? A : never;
export type StepArgs = ArgsOfCall<typeof protocol.step>;
export type FinishArgs = ArgsOfCall<typeof protocol.finish>;
export type AckArgs = ArgOf<typeof acks>;
type KeysOfCall<C> = C extends { types?: { keys: infer K } } ? K : never;
export type TickKeys = KeysOfCall<typeof protocol.step>;

/** A tick's KEYS: the registry and its lease; as a Sidekiq process, its heartbeat and work hashes too. */
export function tickKeys(tick: string, process?: TickKeys["process"]): TickKeys {
  return process ? { ticks: "ticks", lease: `tick:${tick}`, process } : { ticks: "ticks", lease: `tick:${tick}` };
}

/** The acks of outcomes, as a tick sends them (src/tick/passes/ack.ts). */
export const acksOf = ackArgs;

/** Acks naming raw jobs: `succeeded` by queue, the other outcomes (code, queue, job, updated, delay). */
export function rawAcks(succeeded: Record<string, string[]> = {}, others: AckArgs["others"]["items"] = []): AckArgs {
  return {
    succeeded: Object.entries(succeeded).map(([queue, jobs]) => ({ queue, place: "", jobs })),
    others: { items: others },
  };
}

export const NO_ACKS: AckArgs = rawAcks();

/** The fetch part: `batch` jobs from `queues` (default: "default"), in strict order. */
export function fetchOf(batch: number, queues: string[] = ["default"], picks: number[] = []): StepArgs["fetch"] {
  return { batch, queues, picks };
}

interface CallOptions {
  tick: string;
  leaseMs: number;
  call: number | string;
  acks?: AckArgs;
  deadMaxSize?: number;
  deadMaxAgeSec?: number;
  beat?: StepArgs["beat"];
  /** Ordered names this tick serves and its ordered acks (none: the part is left out), with their metrics trailer when `metrics` is given. */
  ordered?: { names: string[]; outcomes?: OrderedOutcome[]; metrics?: { retentionSec: number } };
}

const common = (o: CallOptions) => ({
  tickId: o.tick,
  leaseMs: o.leaseMs,
  deadMaxSize: o.deadMaxSize ?? 100,
  deadMaxAgeSec: o.deadMaxAgeSec ?? 3_600,
  call: String(o.call),
  beat: o.beat,
  acks: o.acks ?? NO_ACKS,
  ordered: o.ordered ? orderedArgs(o.ordered.names, o.ordered.outcomes, o.ordered.metrics) : undefined,
});

/** A step call's ARGV by name: acks (none by default), then a fetch of `batch` (10) from `queues`. */
export function stepArgs(o: CallOptions & { batch?: number; queues?: string[]; picks?: number[] }): StepArgs {
  return { ...common(o), fetch: fetchOf(o.batch ?? 10, o.queues, o.picks) };
}

/** A finish call's ARGV by name: acks (none by default), the queues the tick served, and what it could not start (nothing, a 10 s budget, by default). */
export function finishArgs(
  o: CallOptions & { queues?: string[]; unstartable?: FinishArgs["unstartable"]; recent?: string },
): FinishArgs {
  return {
    ...common(o),
    recent: o.recent ?? "",
    workflows: [],
    queues: o.queues ?? ["default"],
    unstartable: o.unstartable ?? { budgetMs: 10_000, windowMs: 300_000, entries: [] },
  };
}

/** A housekeep call's ARGV by name. */
export function housekeepArgs(o: {
  tick: string;
  call: number;
  resurrectLimit?: number;
  lockMs?: number;
  scanLimit?: number;
  scheduleLimit?: number;
}): ArgsOfCall<typeof protocol.housekeep> {
  return {
    tickId: o.tick,
    call: String(o.call),
    housekeep: {
      resurrectLimit: o.resurrectLimit ?? 100,
      lockMs: o.lockMs ?? 5_000,
      scanLimit: o.scanLimit ?? 100,
      scheduleLimit: o.scheduleLimit ?? 100,
    },
  };
}

/** One job to enqueue: its text, and where and when (default: queue "default", now, no caller's jid). */
export interface EnqueueJob {
  job: string;
  queue?: string;
  delayMs?: number;
  atMs?: number;
  jid?: string;
}

/** An enqueue call's ARGV by name (the token and id windows default to a minute). */
export function enqueueArgs(
  token: string,
  jobs: EnqueueJob[],
  o: { tokenMs?: number; idWindowMs?: number } = {},
): ArgsOfCall<typeof protocol.enqueue> {
  return {
    token,
    tokenMs: o.tokenMs ?? 60_000,
    idWindowMs: o.idWindowMs ?? 60_000,
    jobs: jobs.map((j) => ({
      queue: j.queue ?? "default",
      delayMs: j.delayMs ?? 0,
      atMs: j.atMs ?? 0,
      jid: j.jid ?? "",
      job: j.job,
    })),
  };
}

export const ENQUEUE_KEYS: KeysOf<typeof protocol.enqueue.keys> = { queues: "queues", schedule: "schedule" };

/** The fetched jobs of a decoded reply's `fetched` groups. */
export function jobsOf(fetched: FetchedGroups | undefined): FetchedJob[] {
  return readFetched(fetched ?? []);
}

/** The ordered ids of a decoded reply's `ordered` groups. */
export function idsOf(ordered: OrderedGroup[] | undefined): OrderedFetched[] {
  return readOrderedFetched(ordered ?? []);
}

export type { ArgsOf, Outcome };

/** A declared call as the words of a raw EVAL (or EVALSHA, given the SHA): numkeys, KEYS, the prefix, ARGV. */
export function evalWords<K extends object, A extends object, R>(
  call: TypedCall<K, A, R>,
  keys: K,
  args: A,
  o: { prefix: string; sha?: string },
): (string | number)[] {
  const encoded = encode(call, keys, args);
  return [
    o.sha === undefined ? "EVAL" : "EVALSHA",
    o.sha ?? call.script.text,
    encoded.keys.length,
    ...encoded.keys,
    o.prefix,
    ...encoded.args,
  ];
}

/** The KEYS of ordered_enqueue. */
export const ORDERED_ENQUEUE_KEYS = { names: "ordered" };

/** ordered_enqueue's ARGV: payloads of ordered name `name`, each [id, payload, score ("" for none)], due now. */
export function orderedEnqueueArgs(token: string, items: [string, string, string?][], name = "idx") {
  return {
    token,
    tokenMs: 60_000,
    payloads: items.map(([id, payload, score = ""]) => ({ name, id, payload, score, delayMs: 0 })),
  };
}

/** workflow_tick's ARGV by name for tick "T" (the workflow replay tests' lease `tick:T`), keeping ended runs 60 s. */
export const workflowTickArgs = (call: number, claim: number, commits: Commit[]) => ({
  tickId: "T",
  call,
  claim,
  retentionMs: 60_000,
  commits,
});
