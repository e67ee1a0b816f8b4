// The chaos jobs, shared by the driver (which enqueues them) and the workers
// (which run them). Every job's args start with its id, which is also its
// jid: the ledger records by id and attempt.
//   plain      sleeps a little, succeeds
//   delayed    the same, enqueued with delayMs
//   flaky      fails on its first 1–2 attempts, then succeeds (retry: 3)
//   doomed     always fails; retry: 1, so it is dead after attempt 2
//   expiring   plain, enqueued with a short expiresInMs (src/expiry/): it
//              runs, or is recorded as expired and never starts after that;
//              each start is stamped by the ledger's clock
// and the flow-controlled kinds (src/flow/), whose key is args[3]; each run
// enters the overlap detector under "KIND:KEY" with the key's limit:
//   exclusive  while-executing over 5 keys: never two runs of a key at once
//   limited    concurrency { limit: 2 } on one key
//   rated      rateLimit RATE over a key per 700 jobs (2 at least): most are
//              deferred, and a deferral must use up no attempt
//   once       until-executed over 8 keys, failing its first attempt (a
//              retry keeps the claim): a duplicate of a key still queued or
//              running is answered that job's jid and never runs itself
//   coalesced  coalesce over 4 keys: a duplicate of a waiting job is
//              answered its jid; never two runs of a key at once
// and, for the cancel phase alone (bench/chaos/cancel-phase.ts):
//   cancellable  stamps its start by the ledger's clock, then sleeps,
//                stopping when its signal aborts (a cancel)
// backoff: () => 0 sends failures back at once, so nothing waits on Sidekiq's
// backoff. maxResurrections is set high by the workers: every SIGKILL and
// every lost lease resurrects jobs, and only a real poison job should die.
import type { UniqueMode } from "../../src/index.js";
import type { JobContext } from "../../src/job/context.js";
import type { JobRegistry } from "../../src/job/definition.js";
import type { Ledger } from "./ledger.js";
import { abortableSleep, between, sleep, type Rng } from "./rng.js";

export type JobKind =
  | "plain"
  | "delayed"
  | "flaky"
  | "doomed"
  | "expiring"
  | "exclusive"
  | "limited"
  | "rated"
  | "once"
  | "coalesced";
export const JOB_KINDS: JobKind[] = [
  "plain",
  "delayed",
  "flaky",
  "doomed",
  "expiring",
  "exclusive",
  "limited",
  "rated",
  "once",
  "coalesced",
];

/** [id, sleep ms, failing attempts, flow key ("" for none)] */
export type ChaosArgs = [string, number, number, string];

export interface PlannedJob {
  id: string;
  kind: JobKind;
  args: ChaosArgs;
  delayMs?: number;
  /** expiring: its expiresInMs. */
  expiresInMs?: number;
  unique?: UniqueMode;
  /** Attempts it takes to succeed or go dead: each is one acked `processed`. */
  attempts: number;
}

const DOOMED_RETRIES = 1;
const FLAKY_RETRIES = 3;
/** The rated jobs' limit: at most `limit` starts of a key in any `periodMs` (the judge checks their starts). */
export const RATE = { limit: 3, periodMs: 1_000 };
/** Runs of one key allowed at once, per flow kind. */
export const KEY_LIMITS: Partial<Record<JobKind, number>> = { exclusive: 1, limited: 2, once: 1, coalesced: 1 };
const flowKey = ([, , , key]: ChaosArgs) => key;

export function chaosJobs(ledger: Ledger) {
  const handler =
    (kind: JobKind, fails: (attempt: number, failures: number) => boolean) =>
    async ([id, ms, failures, key]: ChaosArgs, ctx: JobContext) => {
      const limit = KEY_LIMITS[kind];
      const token = limit === undefined ? undefined : await ledger.enter(`${kind}:${key}`, limit);
      try {
        await ledger.start(id, ctx.attempt);
        if (kind === "expiring") await ledger.stamp(id, ctx.attempt);
        if (kind === "rated") await ledger.rated(key, `${id}#${ctx.attempt}#${ctx.fence}`);
        if (ms > 0) await sleep(ms);
        const failing = fails(ctx.attempt, failures);
        await ledger.finish(id, ctx.attempt, !failing);
        if (failing) throw new Error(`chaos: ${id} fails on attempt ${ctx.attempt}`);
      } finally {
        if (token !== undefined) await ledger.leave(`${kind}:${key}`, token);
      }
    };
  const succeeds = (kind: JobKind) => handler(kind, () => false);
  const flaky = (attempt: number, failures: number) => attempt <= failures;
  return {
    plain: succeeds("plain"),
    delayed: succeeds("delayed"),
    expiring: succeeds("expiring"),
    flaky: { retry: FLAKY_RETRIES, backoff: () => 0, perform: handler("flaky", flaky) },
    doomed: { retry: DOOMED_RETRIES, backoff: () => 0, perform: handler("doomed", () => true) },
    exclusive: { perform: succeeds("exclusive"), uniqueKey: flowKey },
    limited: { perform: succeeds("limited"), concurrency: { key: flowKey, limit: KEY_LIMITS.limited! } },
    rated: { perform: succeeds("rated"), rateLimit: { key: flowKey, ...RATE } },
    once: { retry: FLAKY_RETRIES, backoff: () => 0, perform: handler("once", flaky), uniqueKey: flowKey },
    coalesced: { perform: succeeds("coalesced"), uniqueKey: flowKey },
    cancellable: async ([id, ms]: ChaosArgs, ctx: JobContext) => {
      await ledger.started(id);
      await ledger.start(id, ctx.attempt);
      await abortableSleep(ms, ctx.signal);
      await ledger.finish(id, ctx.attempt, true);
    },
  } satisfies JobRegistry;
}

/** The kind of job number i: 31 % plain, 15 % delayed, 12 % flaky, 7 % doomed, 5 % expiring, 30 % flow-controlled (6 % each). */
function kindOf(r: number): JobKind {
  const shares: [JobKind, number][] = [
    ["plain", 0.31],
    ["expiring", 0.05],
    ["delayed", 0.15],
    ["flaky", 0.12],
    ["doomed", 0.07],
    ["exclusive", 0.06],
    ["limited", 0.06],
    ["rated", 0.06],
    ["once", 0.06],
    ["coalesced", 0.06],
  ];
  for (const [kind, share] of shares) if ((r -= share) < 0) return kind;
  return "plain";
}

const UNIQUE: Partial<Record<JobKind, UniqueMode>> = {
  exclusive: "while-executing",
  once: "until-executed",
  coalesced: "coalesce",
};
const KEYS: Partial<Record<JobKind, number>> = { exclusive: 5, limited: 1, once: 8, coalesced: 4 };
// Enough rated keys that the plan drains in seconds, few enough that a chunk holds more than a key's limit.
const ratedKeys = (count: number) => Math.max(2, Math.ceil(count / 700));

export function planJobs(count: number, rng: Rng, tag: string, maxDelayMs: number): PlannedJob[] {
  return Array.from({ length: count }, (_, i) => {
    const kind = kindOf(rng());
    const id = `${tag}-${kind}-${i}`;
    const ms = between(rng, 0, 40);
    const keys = kind === "rated" ? ratedKeys(count) : KEYS[kind];
    const key = keys === undefined ? "" : `${tag}-${kind}-k${between(rng, 0, keys - 1)}`;
    const unique = UNIQUE[kind];
    const job: PlannedJob = { id, kind, args: [id, ms, 0, key], attempts: 1, ...(unique ? { unique } : {}) };
    if (kind === "flaky") {
      const failures = between(rng, 1, 2);
      return { ...job, args: [id, ms, failures, key], attempts: failures + 1 };
    }
    if (kind === "once") return { ...job, args: [id, ms, 1, key], attempts: 2 };
    if (kind === "doomed") return { ...job, attempts: DOOMED_RETRIES + 1 };
    if (kind === "delayed") job.delayMs = between(rng, 100, Math.max(100, maxDelayMs));
    // Short enough that a backlog under faults outlasts some, long enough that others run.
    if (kind === "expiring") job.expiresInMs = between(rng, 100, 3_000);
    return job;
  });
}
