// Cancels under faults: worker processes tick cancellable jobs (0.1–1 s of
// sleep that stops when ctx.signal aborts) through the faulted path while
// the driver cancels a share of them at random moments — queued ones, and
// ones a tick fetched or runs — and the fault injector kills connections,
// pauses and restarts Redis, kills workers and drops replies. A cancel that
// fails in transit is sent again; its last answer stands.
//
// Judged by the ledger (each start stamped by the ledger Redis' clock, and
// the moment each cancel returned) and by where tickq says each job ended:
//   a job started after its cancel returned        must be 0
//   an answer that disagrees with the job's end     must be 0: a cancel that
//     answered cancelled or cancelling ends cancelled; one refused because
//     the job ended (CONFLICT, or NOT_FOUND: no history of succeeded jobs
//     here) means the job succeeded
//   lost (neither succeeded nor cancelled) and stuck must be 0
// and ordered ids beside them, cancelled by name and id, judged per payload
// by the same rule (bench/chaos/cancel-ordered.ts).
import { Redis } from "ioredis";
import { startUpstashLocal, type UpstashLocalServer } from "../../tools/upstash-local/server.js";
import { createTickq, TickqError, type Tickq } from "../../src/index.js";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { columnOf, faultChecks, mustBeZero, problemsOf, type Check, type Column } from "./checks.js";
import { endpointEnv, openEndpoint, type AdapterName, type Endpoint } from "./connect.js";
import { startDropProxy } from "./drop-proxy.js";
import { faultsFor, injectFaults, type FaultCounts } from "./faults.js";
import { startHttpDropProxy, type HttpDropProxy } from "./http-drop-proxy.js";
import { chaosJobs, type ChaosArgs } from "./jobs.js";
import {
  chaosOrdered,
  driveOrdered,
  judgeOrdered,
  type OrderedAnswer,
  type OrderedJudgement,
} from "./cancel-ordered.js";
import { openLedger, type Ledger } from "./ledger.js";
import type { ChaosPhase, PhaseContext } from "./phase-types.js";
import { between, sleep } from "./rng.js";
import { deleteUnder, settle, settleLimits } from "./settle.js";
import { startWorkers } from "./workers.js";

const JOBS = 300;
/** Share of the jobs the driver cancels. */
const CANCEL_SHARE = 0.4;

/** cancelled (it waited), held (a tick held it: cancelled or cancelling, heard), unheard (its tick did not confirm in time), refused. */
type Answer = "cancelled" | "held" | "unheard" | "ended" | "not found";

interface CancelResult {
  adapter: AdapterName;
  faults: FaultCounts;
  faultsAsked: number;
  jobs: number;
  asked: number;
  answers: Record<Answer, number>;
  endedCancelled: number;
  endedSucceeded: number;
  startedAfter: string[];
  disagreeing: string[];
  lost: string[];
  stuck: number;
  settled: boolean;
  ordered: OrderedJudgement;
  problems: string[];
}

const checks: Check<CancelResult>[] = [
  { label: "jobs", value: (r) => r.jobs },
  ...faultChecks<CancelResult>(),
  { label: "cancels asked", value: (r) => r.asked },
  {
    label: "  cancelled waiting / held by a tick / not heard in time",
    value: (r) => `${r.answers.cancelled} / ${r.answers.held} / ${r.answers.unheard}`,
    problem: (r) =>
      r.answers.cancelled === 0 || r.answers.held === 0
        ? "the run cancelled no waiting job or no held one: it checks nothing of that path"
        : undefined,
  },
  { label: "  refused: ended / not found", value: (r) => `${r.answers.ended} / ${r.answers["not found"]}` },
  { label: "ended cancelled / succeeded", value: (r) => `${r.endedCancelled} / ${r.endedSucceeded}` },
  mustBeZero(
    "a cancelled job started after its cancel returned",
    (r) => r.startedAfter.length,
    (r) => r.startedAfter,
  ),
  mustBeZero(
    "cancel answers that disagree with the job's end",
    (r) => r.disagreeing.length,
    (r) => r.disagreeing,
  ),
  mustBeZero(
    "lost (neither succeeded nor cancelled)",
    (r) => r.lost.length,
    (r) => r.lost,
  ),
  mustBeZero("stuck", (r) => r.stuck),
  { label: "ordered ids / payloads", value: (r) => `${r.ordered.ids} / ${r.ordered.payloads}` },
  {
    label: "  ordered cancels: waiting / held / not heard / nothing left",
    value: (r) => {
      const a = r.ordered.answers;
      return `${a.cancelled} / ${a.held} / ${a.unheard} / ${a["not found"]}`;
    },
    problem: (r) =>
      r.ordered.answers.cancelled === 0 || r.ordered.answers.held === 0
        ? "the run cancelled no waiting ordered id or no held run: it checks nothing of that path"
        : undefined,
  },
  mustBeZero(
    "a payload of a cancelled ordered id started after its cancel returned",
    (r) => r.ordered.late.length,
    (r) => r.ordered.late,
  ),
  mustBeZero(
    "ordered payloads enqueued after their cancel returned, taken by it",
    (r) => r.ordered.takenAfter.length,
    (r) => r.ordered.takenAfter,
  ),
  mustBeZero(
    "ordered payloads lost (neither run nor recorded cancelled)",
    (r) => r.ordered.lost.length,
    (r) => r.ordered.lost,
  ),
  {
    label: "settled",
    value: (r) => (r.settled ? "yes" : "no"),
    problem: (r) => (r.settled ? undefined : "work was still left after settling"),
  },
];

/** Cancels `id`, sent again while it fails in transit; the last answer. */
async function cancelOnce(tq: Tickq<ReturnType<typeof chaosJobs>>, id: string, ledger: Ledger): Promise<Answer> {
  for (let tries = 0; ; tries++) {
    try {
      const r = await tq.jobs.cancel(id);
      await ledger.cancelReturned(id);
      if (r.from !== "running") return "cancelled";
      return r.state === "cancelled" || r.heard ? "held" : "unheard";
    } catch (error) {
      if (error instanceof TickqError && error.code === "CONFLICT" && /it is cancelled/.test(error.message)) {
        await ledger.cancelReturned(id); // an earlier try, whose answer was lost, cancelled it
        return "cancelled";
      }
      if (error instanceof TickqError && error.code === "CONFLICT" && /it has ended/.test(error.message))
        return "ended";
      if (error instanceof TickqError && error.code === "NOT_FOUND") return "not found";
      if (tries > 200) throw error;
      await sleep(50);
    }
  }
}

async function runCancels(ctx: PhaseContext): Promise<CancelResult> {
  const prefix = `chaos:${ctx.runId}:cancel-${ctx.adapter}:`;
  const ledgerPrefix = `tickq-chaos:${ctx.runId}:cancel-${ctx.adapter}:`;
  const ledger = openLedger(ctx.ledgerUrl, ledgerPrefix);
  const admin = new Redis(ctx.redis.url, { maxRetriesPerRequest: null });
  admin.on("error", () => {});
  const quiet = { info: () => {}, warn: () => {}, error: () => {} };
  const direct = createTickq({
    redis: ioredisAdapter(admin),
    prefix,
    jobs: chaosJobs(ledger),
    ordered: chaosOrdered(ledger),
    // The harness's own path, past the faults: it waits out a restart or a pause on a loaded
    // machine (a payload sent twice would be judged as run twice) rather than give up at 10 s.
    redisTimeoutMs: 120_000,
    logger: quiet,
  });
  const tcp = await startDropProxy(ctx.redis.port);
  let rest: UpstashLocalServer | undefined;
  let http: HttpDropProxy | undefined;
  let endpoint: Endpoint = { adapter: "ioredis", url: tcp.url };
  if (ctx.adapter === "upstash") {
    rest = await startUpstashLocal({ redisUrl: tcp.url, token: `chaos-cancel-${ctx.runId}` });
    http = await startHttpDropProxy(rest.url);
    endpoint = { adapter: "upstash", url: http.url, token: rest.token };
  }
  const workers = startWorkers(ctx.workers, {
    ...endpointEnv(endpoint),
    PREFIX: prefix,
    LEDGER_URL: ctx.ledgerUrl,
    LEDGER_PREFIX: ledgerPrefix,
    LEASE_MS: String(ctx.leaseMs),
    BUDGET_MS: String(ctx.budgetMs),
    CHAOS_ORDERED: "1",
  });
  const caller = openEndpoint(endpoint);
  try {
    const tq = createTickq({
      redis: caller.adapter,
      prefix,
      jobs: chaosJobs(ledger),
      ordered: chaosOrdered(ledger),
      redisTimeoutMs: 2_000,
      logger: quiet,
    });
    // Workers take seconds to start on a loaded machine: the window opens once one ran a job.
    await direct.enqueue("cancellable", [`${ctx.adapter[0]}-warm-up`, 0, 0, ""]);
    for (let waited = 0; (await direct.stats()).processed === 0 && waited < 60_000; waited += 100) await sleep(100);
    const ids = Array.from({ length: JOBS }, (_, i) => `${ctx.adapter[0]}-cancellable-${i}`);
    const windowMs = ctx.seconds * 1000;
    const targets = ids.filter(() => ctx.rng() < CANCEL_SHARE);
    // Each cancel comes 0–0.8 s after its job's enqueue: some wait, some were fetched, some run.
    const delays = targets.map(() => between(ctx.rng, 0, 800));
    ctx.log(`cancel ${ctx.adapter}: ${JOBS} jobs, ${targets.length} to cancel`);
    // Enqueued over most of the window through the direct connection (enqueue under faults is the plain phase's).
    const enqueued = new Set<string>();
    const enqueueing = (async () => {
      for (let i = 0; i < ids.length; i += 20) {
        const chunk = ids.slice(i, i + 20).map((id) => ({
          name: "cancellable" as const,
          args: [id, between(ctx.rng, 100, 1_000), 0, ""] as ChaosArgs,
          jid: id,
        }));
        await direct.enqueueBulk(chunk);
        for (const job of chunk) enqueued.add(job.jid);
        await sleep((windowMs * 0.8) / (ids.length / 20));
      }
    })();
    const faults = faultsFor({ admin, redis: ctx.redis, workers, tcp, http, rng: ctx.rng });
    const answers = new Map<string, Answer>();
    const [, counts, , orderedAnswers] = await Promise.all([
      Promise.all(
        targets.map(async (id, k) => {
          while (!enqueued.has(id)) await sleep(20); // its enqueue is on the way
          await sleep(delays[k]!);
          answers.set(id, await cancelOnce(tq, id, ledger));
        }),
      ),
      injectFaults({
        faults,
        perKind: ctx.perKind,
        windowMs,
        rng: ctx.rng,
        log: (l) => ctx.log(`cancel ${ctx.adapter}: ${l}`),
      }),
      enqueueing,
      driveOrdered({ direct, tq, ledger, rng: ctx.rng, windowMs, letter: ctx.adapter[0]! }),
    ]);
    const settled = (await settle(direct, settleLimits(ctx.settleSeconds, ctx.leaseMs))).settled;
    await workers.stop(ctx.budgetMs + 3_000);
    return await judge({ ctx, ids, answers, orderedAnswers, counts, settled, direct, ledger });
  } finally {
    await workers.stop(1_000);
    caller.close();
    await http?.close();
    await rest?.close();
    await tcp.close();
    await ledger.clear();
    ledger.close();
    await deleteUnder(admin, prefix);
    admin.disconnect();
  }
}

async function judge(e: {
  ctx: PhaseContext;
  ids: string[];
  answers: Map<string, Answer>;
  orderedAnswers: Map<string, OrderedAnswer>;
  counts: FaultCounts;
  settled: boolean;
  direct: Tickq<ReturnType<typeof chaosJobs>, ReturnType<typeof chaosOrdered>>;
  ledger: Ledger;
}): Promise<CancelResult> {
  const view = await e.ledger.read();
  const { starts, returned } = await e.ledger.cancelTimes();
  const succeeded = new Set([...view.ok.keys()].map((f) => f.slice(0, f.lastIndexOf("#"))));
  const r: CancelResult = {
    adapter: e.ctx.adapter,
    faults: e.counts,
    faultsAsked: e.ctx.perKind,
    jobs: e.ids.length,
    asked: e.answers.size,
    answers: { cancelled: 0, held: 0, unheard: 0, ended: 0, "not found": 0 },
    endedCancelled: 0,
    endedSucceeded: 0,
    startedAfter: [],
    disagreeing: [],
    lost: [],
    stuck: 0,
    settled: e.settled,
    ordered: await judgeOrdered({ direct: e.direct, ledger: e.ledger, answers: e.orderedAnswers, finished: succeeded }),
    problems: [],
  };
  for (const answer of e.answers.values()) r.answers[answer]++;
  for (const id of e.ids) {
    const end = await e.direct.jobs.result(id);
    const cancelled = end.state === "cancelled";
    if (cancelled) r.endedCancelled++;
    else if (succeeded.has(id)) r.endedSucceeded++;
    else if (end.state === "unknown") r.lost.push(id);
    else r.stuck++;
    const answer = e.answers.get(id);
    if (answer !== undefined) {
      const saysCancelled = answer === "cancelled" || answer === "held" || answer === "unheard";
      if (saysCancelled !== cancelled) r.disagreeing.push(`${id}: answered ${answer}, ended ${end.state}`);
    }
    const at = returned.get(id);
    const late = at === undefined ? [] : (starts.get(id) ?? []).filter((ms) => ms > at);
    if (late.length > 0)
      r.startedAfter.push(`${id}: started ${late[0]! - at!} ms after its cancel returned (${answer})`);
  }
  r.problems = problemsOf(checks, r);
  return r;
}

export const cancelPhase: ChaosPhase = {
  name: "cancel",
  async run(ctx): Promise<Column> {
    return columnOf(`cancel ${ctx.adapter}`, checks, await runCancels(ctx));
  },
};
