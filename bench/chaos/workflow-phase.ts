// The workflow phase of the fault suite, over one adapter: RUNS runs of a
// 10-step workflow (bench/chaos/workflow-worker.ts: steps, a sleep, a wait
// for an event, a step that fails its first try) run by worker processes
// through the drop proxies while every fault kind is injected; the driver
// sends each waiting run its event. Then the workers tick until every run
// has ended. Holds when every run completed (none lost or failed), no two
// executions of a run overlapped (their step intervals, by fence, from a
// ledger on a Redis never faulted), and no step's result was read back with
// two values (committed more than once). A step function may run again
// after a kill (at least once per step): that count is shown, not judged.
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { createTickq } from "../../src/index.js";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { startUpstashLocal, type UpstashLocalServer } from "../../tools/upstash-local/server.js";
import { columnOf, faultChecks, mustBeZero, mustMatch, problemsOf, type Check } from "./checks.js";
import { endpointEnv, type AdapterName, type Endpoint } from "./connect.js";
import { startDropProxy } from "./drop-proxy.js";
import { faultsFor, injectFaults, type FaultCounts } from "./faults.js";
import { startHttpDropProxy, type HttpDropProxy } from "./http-drop-proxy.js";
import type { ChaosPhase, PhaseContext } from "./phases.js";
import { sleep } from "./rng.js";
import { deleteUnder } from "./settle.js";
import { EVENT, STEPS, workflowPhaseWorkflows } from "./workflow-worker.js";
import { startWorkers } from "./workers.js";

const WORKER = fileURLToPath(new URL("./workflow-worker.ts", import.meta.url));
/** Runs of the phase: a tenth of the 500 per 50 faults of each kind asked, at least 100. */
const runsFor = (perKind: number) => Math.max(100, Math.min(500, perKind * 10));

export interface WorkflowPhaseResult {
  adapter: AdapterName;
  runs: number;
  completed: number;
  failed: number;
  timedOutWaits: number;
  overlaps: string[];
  differs: string[];
  reran: number;
  flakyRetried: number;
  faults: FaultCounts;
  faultsAsked: number;
  workerCrashes: number;
  seconds: number;
  problems: string[];
  workerStderr: string[];
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
  for (const [n, id] of ids.entries()) await retrying(() => tq.workflows.start("chaosFlow", { n, runId: id }, { id }));
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
  try {
    o.log(`${o.adapter}: workflow phase, ${runs} runs of ${STEPS.length} steps`);
    const faults = faultsFor({ admin, redis: o.redis, workers, tcp, http, rng: o.rng });
    const counts = await injectFaults({
      faults,
      perKind: o.perKind,
      windowMs: o.seconds * 1000,
      rng: o.rng,
      log: (line) => o.log(`${o.adapter} workflows: ${line}`),
    });
    o.log(`${o.adapter}: workflow faults over, settling`);
    const deadline = Date.now() + Math.max(o.settleSeconds, 120) * 1000;
    while (ended < runs && Date.now() < deadline) await sleep(250);
    stopEvents = true;
    await events;
    await workers.stop(o.budgetMs + 3_000);
    const result: WorkflowPhaseResult = {
      adapter: o.adapter,
      runs,
      completed: 0,
      failed: 0,
      timedOutWaits: 0,
      overlaps: [],
      differs: await ledger.smembers(`${at}differs`),
      reran: Object.values(await ledger.hgetall(`${at}ran`)).reduce((a, n) => a + Math.max(0, Number(n) - 1), 0),
      flakyRetried: 0,
      faults: counts,
      faultsAsked: o.perKind,
      workerCrashes: workers.crashes(),
      seconds: 0,
      problems: [],
      workerStderr: workers.stderr(),
    };
    for (const id of ids) {
      const run = await retrying(() => tq.workflows.get(id));
      if (run?.status === "completed") result.completed++;
      if (run?.status === "failed") result.failed++;
      if ((run?.output as { timedOut?: boolean } | undefined)?.timedOut) result.timedOutWaits++;
      if ((run?.steps.find((s) => s.name === "flaky")?.attempts ?? 0) >= 2) result.flakyRetried++;
      const intervals = (await ledger.lrange(`${at}iv:${id}`, 0, -1)).map(
        (s) => JSON.parse(s) as [number, number, number],
      );
      result.overlaps.push(...overlapsOf(id, intervals));
    }
    result.seconds = Math.round((Date.now() - started) / 1000);
    return result;
  } finally {
    stopEvents = true;
    await events;
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
