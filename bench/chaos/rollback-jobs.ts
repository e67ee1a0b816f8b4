// The work of the rollback phase (bench/chaos/rollback-phase.ts) and its
// ledger, on a Redis never faulted (LEDGER_URL, under LEDGER_PREFIX). Every
// piece of work is a unit named by the driver: a job by its jid, an ordered
// payload `o-N`, a workflow step `RUN:STEP`. Each unit's history is a list
// `h:UNIT` of "s:T" (an execution started), "e:T" (it ended and succeeded)
// and "a:U:E" (the tick that ran the success ended at E returned at U, so
// its ack was acknowledged by then), T and U by Date.now() (one clock for
// every process). Fences go to `fences` (the largest seen per scope: the
// limit-1 key, an until-executed key, an ordered id, a workflow run), and a
// start whose fence is below one seen before goes to `backwards`. Each
// execution marks its scope in the overlap detector (bench/chaos/overlap.ts).
import type { Redis } from "ioredis";
import {
  createTickq,
  type JobContext,
  type OrderedContext,
  type RedisAdapter,
  type StepContext,
  type WorkflowStep,
} from "../../src/index.js";
import { overlapDetector } from "./overlap.js";
import { abortableSleep } from "./rng.js";
import { quietLogger } from "./worker-loop.js";

/** Steps of a workflow run of the phase. */
export const ROLLBACK_STEPS = ["a", "b", "c", "d"] as const;
/** The concurrency key every `limited` job shares, at a limit of 1. */
export const LIMIT_KEY = "one";

// Keeps the largest fence per scope; a fence below it (or equal, when ARGV[3] is "1": every start has its own) is recorded.
const FENCE = `local last = redis.call('HGET', KEYS[1], ARGV[1])
local f = tonumber(ARGV[2])
if last and (f < tonumber(last) or (ARGV[3] == '1' and f == tonumber(last))) then
  redis.call('RPUSH', KEYS[2], ARGV[1] .. ': fence ' .. ARGV[2] .. ' after ' .. last) return 1 end
if not last or f > tonumber(last) then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 0`;

/** A success waiting for its tick to return: then its ack is known acknowledged. */
export interface Success {
  unit: string;
  endedAt: number;
}

export interface RollbackLedger {
  /** Runs `body` as one execution of `unit` holding `scope` (fence and overlap checked); records its start and success. */
  execute(unit: string | string[], scope: string, fence: number | undefined, body: () => Promise<void>): Promise<void>;
  /** Records the successes of a tick that returned: their acks were acknowledged by now. */
  acked(successes: Success[]): Promise<void>;
  /**
   * Counts workflow step successes whose tick returned without committing them (their acks are not recorded):
   * `unexplained` says so when the tick held back more than the runs it left past graceMs and those whose commit
   * was not stored (report.workflows.abandoned and lost): a defect.
   */
  uncommitted(steps: number, unexplained?: string): Promise<void>;
}

/**
 * `batch()` is the list the current tick's successes go to (the worker swaps it per tick). A fence belongs to
 * one start of a job or an ordered id (equal to one seen is backwards), and to a whole execution of a workflow
 * run's steps (`wf:` scopes: only below is backwards).
 */
export function openRollbackLedger(redis: Redis, at: string, batch: () => Success[]): RollbackLedger {
  const detector = overlapDetector(redis, `${at}ov:`);
  const history = (units: string[], entry: string) =>
    Promise.all(units.map((unit) => redis.rpush(`${at}h:${unit}`, entry)));
  return {
    async execute(unit, scope, fence, body) {
      const units = typeof unit === "string" ? [unit] : unit;
      const successes = batch();
      const token = await detector.enter(scope);
      try {
        await history(units, `s:${Date.now()}`);
        if (fence !== undefined)
          await redis.eval(
            FENCE,
            2,
            `${at}fences`,
            `${at}backwards`,
            scope,
            String(fence),
            scope.startsWith("wf:") ? "0" : "1",
          );
        await body();
        const endedAt = Date.now();
        await history(units, `e:${endedAt}`);
        for (const u of units) successes.push({ unit: u, endedAt });
      } finally {
        await detector.leave(scope, token);
      }
    },
    async acked(successes) {
      const now = Date.now();
      await Promise.all(successes.map((s) => redis.rpush(`${at}h:${s.unit}`, `a:${now}:${s.endedAt}`)));
    },
    async uncommitted(steps, unexplained) {
      await redis.incrby(`${at}uncommitted`, steps);
      if (unexplained !== undefined) await redis.rpush(`${at}unexplained`, unexplained);
    },
  };
}

/** [unit, sleep ms] for plain and limited jobs; [unit, sleep ms, unique key] for `once`. */
export type RollbackArgs = [string, number] | [string, number, string];

export function rollbackJobs(ledger: RollbackLedger) {
  const run = (scope: (args: RollbackArgs) => string) => async (args: RollbackArgs, ctx: JobContext) =>
    ledger.execute(args[0], scope(args), ctx.fence, () => abortableSleep(args[1], ctx.signal));
  return {
    plain: run(([unit]) => `job:${unit}`),
    limited: { perform: run(() => `limit:${LIMIT_KEY}`), concurrency: { key: () => LIMIT_KEY, limit: 1 } },
    once: { perform: run(([, , key]) => `once:${key}`), uniqueKey: ([, , key]: RollbackArgs) => key ?? "" },
  };
}

export function rollbackOrdered(ledger: RollbackLedger) {
  return {
    ordered: {
      retry: 1_000,
      backoffMs: () => 0,
      perform: async (id: string, payloads: { n: number; ms: number }[], ctx: OrderedContext) =>
        ledger.execute(
          payloads.map((p) => `o-${p.n}`),
          `ord:${id}`,
          ctx.fence,
          () => abortableSleep(Math.max(...payloads.map((p) => p.ms)), ctx.signal),
        ),
    },
  };
}

export function rollbackWorkflows(ledger: RollbackLedger) {
  return {
    steps: {
      retry: 1_000,
      backoff: () => 0,
      run: async (input: { runId: string; ms: number }, step: WorkflowStep) => {
        for (const name of ROLLBACK_STEPS) {
          await step.run(name, (ctx: StepContext) =>
            ledger.execute(`${input.runId}:${name}`, `wf:${input.runId}`, ctx.fence, () =>
              abortableSleep(input.ms, ctx.signal),
            ),
          );
        }
      },
    },
  };
}

/** The phase's tickq, as the driver (which only sends) and the workers (which tick) both make it. */
export function rollbackTickq(redis: RedisAdapter, prefix: string, ledger: RollbackLedger, redisTimeoutMs: number) {
  return createTickq({
    redis,
    prefix,
    jobs: rollbackJobs(ledger),
    ordered: rollbackOrdered(ledger),
    workflows: rollbackWorkflows(ledger),
    maxResurrections: 1_000,
    redisTimeoutMs,
    logger: quietLogger,
  });
}

export type RollbackTickq = ReturnType<typeof rollbackTickq>;
