// The workflow phase of the fault suite, over one adapter: RUNS runs of a
// 10-step workflow (bench/chaos/workflow-worker.ts: steps, a sleep, a wait
// for an event, a step that fails its first try) run by worker processes
// through the drop proxies while every fault kind is injected; the driver
// sends each waiting run its event, and half the runs (the even ones) their
// event once right after their start, before their wait parks: kept, it must
// be taken (none of those waits may end by its timeout: "event lost"). Then
// the workers tick until every run
// has ended. Holds when every run completed (none lost or failed), no two
// executions of a run overlapped (their step intervals, by fence, from a
// ledger on a Redis never faulted), and no step's result was read back with
// two values (committed more than once). A step function may run again
// after a kill (at least once per step): that count is shown, not judged.
// Beside them, as many runs of 40 quick steps are each cancelled once while
// they run: no step of a run may start after its cancel answered
// "cancelled" (start times by Date.now(), one clock for every process).
// Beside them, runs that fail once are retried, and runs of two versions are
// run by workers that flip between two deployments tick by tick
// (workflow-repairs.ts): each must complete, on its own version's code.
// Beside them, parents invoke children and every other parent is cancelled
// mid-run (workflow-children.ts): no child of a cancelled parent may be left
// running ("child left running"). Once the faults are over, 20,000 runs parked on one wait get their event:
// the longest tickq script in SLOWLOG meanwhile must stay within 20 ms.
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { createTickq, type Tickq } from "../../src/index.js";
import type { JobRegistry } from "../../src/job/definition.js";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { startUpstashLocal, type UpstashLocalServer } from "../../tools/upstash-local/server.js";
import { parkWaits } from "../park-waits.js";
import { watchScripts } from "../workflow-events.js";
import { atMost, columnOf, faultChecks, mustBeZero, mustMatch, problemsOf, type Check } from "./checks.js";
import { endpointEnv, type AdapterName, type Endpoint } from "./connect.js";
import { startDropProxy } from "./drop-proxy.js";
import { faultsFor, injectFaults, type FaultCounts } from "./faults.js";
import { startHttpDropProxy, type HttpDropProxy } from "./http-drop-proxy.js";
import type { ChaosPhase, PhaseContext } from "./phase-types.js";
import { sleep } from "./rng.js";
import { deleteUnder } from "./settle.js";
import { EVENT, MANY_EVENT, STEPS, workflowPhaseWorkflows } from "./workflow-worker.js";
import { startWorkers } from "./workers.js";
import { repairLanes, type RepairResult } from "./workflow-repairs.js";
import { childLanes, type ChildResult } from "./workflow-children.js";

const WORKER = fileURLToPath(new URL("./workflow-worker.ts", import.meta.url));
/** Runs of the phase: a tenth of the 500 per 50 faults of each kind asked, at least 100. */
const runsFor = (perKind: number) => Math.max(100, Math.min(500, perKind * 10));
/** Runs parked on one event once the faults are over (issue 40: 414 ms in one script at 20,000). */
const MANY_WAITS = 20_000;
/** The longest a tickq script may hold Redis, in ms, while that event is sent. */
const LONGEST_SCRIPT_MS = 20;

export interface WorkflowPhaseResult {
  adapter: AdapterName;
  runs: number;
  completed: number;
  failed: number;
  timedOutWaits: number;
  /** Runs sent their event once before their wait parked whose wait still ended by its timeout. */
  eventsLost: string[];
  overlaps: string[];
  differs: string[];
  reran: number;
  flakyRetried: number;
  /** Cancels of running runs asked, answered "cancelled", answered "cancelling" (the tick had not heard in 10 s). */
  cancelsAsked: number;
  cancelsAnswered: number;
  cancelsUnheard: number;
  /** Steps that started after their run's cancel answered "cancelled". */
  startedAfterCancel: string[];
  /** The longest tickq script in SLOWLOG while MANY_WAITS runs got their event, in ms. */
  longestScriptMs?: number;
  longestScript?: string;
  faults: FaultCounts;
  faultsAsked: number;
  workerCrashes: number;
  seconds: number;
  problems: string[];
  workerStderr: string[];
  repairs?: RepairResult;
  children?: ChildResult;
}

const CHECKS: Check<WorkflowPhaseResult>[] = [
  mustMatch(
    "workflow runs completed / started",
    (r) => r.completed,
    (r) => r.runs,
    "every run completes",
  ),
  mustBeZero("workflow runs failed", (r) => r.failed),
  mustBeZero(
    "workflow executions of a run that overlapped",
    (r) => r.overlaps.length,
    (r) => r.overlaps,
  ),
  mustBeZero(
    "workflow events lost (sent before the wait, the wait timed out)",
    (r) => r.eventsLost.length,
    (r) => r.eventsLost,
  ),
  mustBeZero(
    "workflow steps committed more than once",
    (r) => r.differs.length,
    (r) => r.differs,
  ),
  mustMatch(
    "flaky steps retried / runs",
    (r) => r.flakyRetried,
    (r) => r.runs,
    "a step that fails its first try is retried and succeeds",
  ),
  mustBeZero(
    "workflow steps started after their run's cancel returned",
    (r) => r.startedAfterCancel.length,
    (r) => r.startedAfterCancel,
  ),
  mustMatch(
    "failed workflow runs retried, completed / started",
    (r) => r.repairs?.retriedCompleted,
    (r) => r.repairs?.retriedRuns,
    "a run that fails once and is retried completes",
  ),
  { label: "  retries that resumed a run", value: (r) => r.repairs?.retries },
  mustMatch(
    "workflow runs across version bumps, completed / started",
    (r) => r.repairs?.versionedCompleted,
    (r) => r.repairs?.versionedRuns,
    "a run of either version completes while deployments flip",
  ),
  mustBeZero(
    "workflow runs that ran another version's code",
    (r) => r.repairs?.wrongVersion.length,
    (r) => r.repairs?.wrongVersion ?? [],
  ),
  mustBeZero(
    "workflow children left running (their parent cancelled)",
    (r) => r.children?.leftRunning.length,
    (r) => r.children?.leftRunning ?? [],
  ),
  mustMatch(
    "parents not cancelled, completed with their child's output / started",
    (r) => r.children?.uncancelledCompleted,
    (r) => r.children?.uncancelled,
    "a parent that is not cancelled completes with its child's output",
  ),
  { label: "  parents cancelled mid-run", value: (r) => r.children?.cancelled },
  {
    label: "workflow cancels answered cancelled / cancelling / asked",
    value: (r) => `${r.cancelsAnswered} / ${r.cancelsUnheard} / ${r.cancelsAsked}`,
  },
  {
    // Over its bound, the problem names the script (the row below names it always).
    ...atMost(
      `longest tickq script in SLOWLOG, ms (an event to ${MANY_WAITS.toLocaleString("en")} waits)`,
      (r) => r.longestScriptMs,
      LONGEST_SCRIPT_MS,
    ),
    problem: (r) =>
      r.longestScriptMs === undefined || r.longestScriptMs <= LONGEST_SCRIPT_MS
        ? undefined
        : `the longest tickq script in SLOWLOG, ${r.longestScript}, took ${r.longestScriptMs} ms, over its bound of ${LONGEST_SCRIPT_MS}`,
  },
  { label: "  that script", value: (r) => r.longestScript },
  { label: "workflow step tries run again (after a kill)", value: (r) => r.reran },
  { label: "workflow waits ended by their timeout", value: (r) => r.timedOutWaits },
  ...faultChecks<WorkflowPhaseResult>(),
  { label: "worker crashes", value: (r) => r.workerCrashes },
];

export const workflowPhase: ChaosPhase = {
  name: "workflows",
  async run(ctx) {
    const result = await runWorkflowPhase(ctx);
    result.problems.push(...problemsOf(CHECKS, result));
    return columnOf(`workflows ${ctx.adapter}`, CHECKS, result);
  },
};

/** What the phase's driver calls: start, cancel and sendEvent. */
interface PhaseTickq {
  workflows: Pick<Tickq<JobRegistry>["workflows"], "cancel" | "sendEvent"> & {
    start(name: "chaosCancel", input: { runId: string }, options: { id: string }): Promise<string>;
  };
}

/**
 * Runs of chaosCancel started over `windowMs` in four lanes, each cancelled once 0–250 ms after its start
 * (mostly mid-run): when each cancel answered "cancelled" (Date.now(), by run), and how many answered
 * "cancelling" or found the run ended.
 */
async function cancelLanes(
  tq: PhaseTickq,
  count: number,
  windowMs: number,
): Promise<Map<string, number> & { unheard: number; ended: number }> {
  const answered = Object.assign(new Map<string, number>(), { unheard: 0, ended: 0 });
  const lanes = 4;
  const gap = Math.max(50, windowMs / Math.ceil(count / lanes));
  const lane = async (first: number) => {
    for (let k = first; k < count; k += lanes) {
      const id = `c-${k}`;
      await untilDone(() => tq.workflows.start("chaosCancel", { runId: id }, { id }));
      await sleep(Math.floor(Math.random() * 250));
      const status = await untilDone(() => tq.workflows.cancel(id));
      if (status === "cancelled") answered.set(id, Date.now());
      else if (status === "cancelling") answered.unheard++;
      else answered.ended++;
      await sleep(gap);
    }
  };
  await Promise.all(Array.from({ length: lanes }, (_, first) => lane(first)));
  return answered;
}

async function untilDone<T>(call: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch {
      await sleep(100);
    }
  }
}

/** Parks MANY_WAITS runs on one wait, sends their event, and answers the longest tickq script in SLOWLOG meanwhile (ms). */
async function longestScriptOfOneEvent(
  tq: PhaseTickq,
  admin: Redis,
  prefix: string,
): Promise<{ longestMs: number; longest: string }> {
  await parkWaits(tq as never, {
    redis: admin,
    adapter: ioredisAdapter(admin),
    prefix,
    workflow: "chaosWaiter",
    step: "go",
    event: MANY_EVENT,
    match: "",
    runs: MANY_WAITS,
  });
  // No AOF rewrite starts meanwhile (watchScripts): its fork's page copying is not a script's work.
  const read = await watchScripts(admin);
  await tq.workflows.sendEvent(MANY_EVENT, { data: true });
  // The workers claim the woken runs meanwhile: their scripts count too.
  await sleep(2_000);
  const { longestMs, longest, forks } = await read();
  return { longestMs, longest: forks > 0 ? `${longest} (after ${forks} fork(s) in the window)` : longest };
}

/** Pairs of intervals [fence, start, end] of one run with other fences that intersect. */
export function overlapsOf(runId: string, intervals: [number, number, number][]): string[] {
  const found: string[] = [];
  for (let i = 0; i < intervals.length; i++) {
    for (let j = i + 1; j < intervals.length; j++) {
      const [fa, sa, ea] = intervals[i]!;
      const [fb, sb, eb] = intervals[j]!;
      if (fa !== fb && sa < eb && sb < ea) found.push(`${runId}: fences ${fa} and ${fb}`);
    }
  }
  return found;
}

async function runWorkflowPhase(o: PhaseContext): Promise<WorkflowPhaseResult> {
  const started = Date.now();
  const prefix = `chaos-wf:${o.runId}:${o.adapter}:`;
  const at = `tickq-chaos-wf:${o.runId}:${o.adapter}:`;
  const ledger = new Redis(o.ledgerUrl);
  const admin = new Redis(o.redis.url, { maxRetriesPerRequest: null });
  admin.on("error", () => {});
  const quiet = { info: () => {}, warn: () => {}, error: () => {} };
  const tq = createTickq({
    redis: ioredisAdapter(admin),
    prefix,
    jobs: {},
    workflows: workflowPhaseWorkflows(ledger),
    logger: quiet,
  });
  const tcp = await startDropProxy(o.redis.port);
  let rest: UpstashLocalServer | undefined;
  let http: HttpDropProxy | undefined;
  let endpoint: Endpoint = { adapter: "ioredis", url: tcp.url };
  if (o.adapter === "upstash") {
    rest = await startUpstashLocal({ redisUrl: tcp.url, token: `chaos-wf-${o.runId}` });
    http = await startHttpDropProxy(rest.url);
    endpoint = { adapter: "upstash", url: http.url, token: rest.token };
  }
  const runs = runsFor(o.perKind);
  const ids = Array.from({ length: runs }, (_, n) => `wf-${n}`);
  const retrying = async <T>(call: () => Promise<T>): Promise<T> => {
    for (;;) {
      try {
        return await call();
      } catch {
        await sleep(100);
      }
    }
  };
  for (const [n, id] of ids.entries()) {
    await retrying(() => tq.workflows.start("chaosFlow", { n, runId: id }, { id }));
    // Sent before the run reaches its wait (kept events); the id makes a retried send after a fault a no-op.
    if (n % 2 === 0)
      await retrying(() => tq.workflows.sendEvent(EVENT, { match: String(n), data: true, id: `early-${n}` }));
  }
  const old = createTickq({
    redis: ioredisAdapter(admin),
    prefix,
    jobs: {},
    workflows: workflowPhaseWorkflows(ledger, "old"),
    logger: quiet,
  });
  const repairs = await repairLanes(old, tq, ledger, at, Math.max(20, Math.round(runs / 5)));
  const children = childLanes(tq as never, Math.max(20, Math.round(runs / 5)), o.seconds * 1000);
  const workers = startWorkers(
    o.workers,
    {
      ...endpointEnv(endpoint),
      PREFIX: prefix,
      LEDGER_URL: o.ledgerUrl,
      LEDGER_PREFIX: at,
      LEASE_MS: String(o.leaseMs),
      BUDGET_MS: String(o.budgetMs),
    },
    WORKER,
  );
  let ended = 0;
  let stopEvents = false;
  // The driver sends each waiting run its event (an event sent before the wait is not kept).
  const events = (async () => {
    while (!stopEvents) {
      try {
        let cursor: string | undefined;
        do {
          const page = await tq.workflows.list({ status: "waiting", limit: 200, ...(cursor ? { cursor } : {}) });
          for (const run of page.runs) {
            await tq.workflows.sendEvent(EVENT, { match: run.id.slice("wf-".length), data: true });
          }
          cursor = page.cursor;
        } while (cursor);
        const counts = (await tq.stats()).workflows.chaosFlow;
        if (counts) ended = counts.completed + counts.failed + counts.cancelled;
      } catch {
        // a fault: try again
      }
      await sleep(200);
    }
  })();
  const cancels = cancelLanes(tq, runs, o.seconds * 1000);
  try {
    o.log(`${o.adapter}: workflow phase, ${runs} runs of ${STEPS.length} steps, ${runs} more cancelled once each`);
    const faults = faultsFor({ admin, redis: o.redis, workers, tcp, http, rng: o.rng });
    const counts = await injectFaults({
      faults,
      perKind: o.perKind,
      windowMs: o.seconds * 1000,
      rng: o.rng,
      log: (line) => o.log(`${o.adapter} workflows: ${line}`),
    });
    o.log(`${o.adapter}: workflow faults over, settling`);
    await repairs.faultsOver();
    const deadline = Date.now() + Math.max(o.settleSeconds, 120) * 1000;
    const repaired = () => repairs.ended().catch(() => false);
    const parented = () => children.ended().catch(() => false);
    while ((ended < runs || !(await repaired()) || !(await parented())) && Date.now() < deadline) await sleep(250);
    stopEvents = true;
    await events;
    const cancelled = await cancels;
    o.log(`${o.adapter}: an event to ${MANY_WAITS} parked runs`);
    const longest = await retrying(() => longestScriptOfOneEvent(tq, admin, prefix));
    await workers.stop(o.budgetMs + 3_000);
    const result: WorkflowPhaseResult = {
      adapter: o.adapter,
      runs,
      completed: 0,
      failed: 0,
      timedOutWaits: 0,
      eventsLost: [],
      overlaps: [],
      differs: await ledger.smembers(`${at}differs`),
      reran: Object.values(await ledger.hgetall(`${at}ran`)).reduce((a, n) => a + Math.max(0, Number(n) - 1), 0),
      flakyRetried: 0,
      cancelsAsked: cancelled.size + cancelled.unheard + cancelled.ended,
      cancelsAnswered: cancelled.size,
      cancelsUnheard: cancelled.unheard,
      startedAfterCancel: [],
      longestScriptMs: longest.longestMs,
      longestScript: longest.longest,
      faults: counts,
      faultsAsked: o.perKind,
      workerCrashes: workers.crashes(),
      seconds: 0,
      problems: [],
      workerStderr: workers.stderr(),
      repairs: await repairs.result(),
      children: await children.result(),
    };
    for (const id of ids) {
      const run = await retrying(() => tq.workflows.get(id));
      if (run?.status === "completed") result.completed++;
      if (run?.status === "failed") result.failed++;
      if ((run?.output as { timedOut?: boolean } | undefined)?.timedOut) {
        result.timedOutWaits++;
        if (Number(id.slice("wf-".length)) % 2 === 0) result.eventsLost.push(id);
      }
      if ((run?.steps.find((s) => s.name === "flaky")?.attempts ?? 0) >= 2) result.flakyRetried++;
      const intervals = (await ledger.lrange(`${at}iv:${id}`, 0, -1)).map(
        (s) => JSON.parse(s) as [number, number, number],
      );
      result.overlaps.push(...overlapsOf(id, intervals));
    }
    for (const [id, answeredAt] of cancelled) {
      const starts = (await ledger.lrange(`${at}cst:${id}`, 0, -1)).map(Number);
      const late = starts.filter((t) => t > answeredAt);
      if (late.length > 0)
        result.startedAfterCancel.push(
          `${id}: ${late.length} step(s), up to ${Math.max(...late) - answeredAt} ms after`,
        );
    }
    result.seconds = Math.round((Date.now() - started) / 1000);
    return result;
  } finally {
    stopEvents = true;
    await events;
    await repairs.stop();
    await workers.stop(1_000);
    await http?.close();
    await rest?.close();
    await tcp.close();
    await deleteUnder(admin, prefix);
    await deleteUnder(ledger, at);
    admin.disconnect();
    ledger.disconnect();
  }
}
