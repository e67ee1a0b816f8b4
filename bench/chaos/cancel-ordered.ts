// The cancel phase's ordered ids (bench/chaos/cancel-phase.ts): beside its
// plain jobs, ids of the ordered job `cancellableOrdered` get payloads over
// the window (each run stamps each payload's start by the ledger's clock,
// sleeps until its signal aborts, then notes each payload finished), and
// the driver cancels a share of the ids once each — half at random moments,
// half once the id's run started (a tick holds it) — over the faulted path, sent again while it fails
// in transit. The ledger notes when each payload's enqueue was sent and
// returned, when each cancel was sent and when it returned. Judged as plain
// jobs are (bench/chaos/cancel-phase.ts), per payload:
//   a payload enqueued before its id's cancel was sent that started after
//     the cancel returned                                       must be 0
//   a payload enqueued after its id's cancel returned, taken by it  must be 0
//   lost: neither finished nor in a cancelled record                must be 0
import { TickqError, type OrderedContext, type Tickq } from "../../src/index.js";
import type { JobRegistry } from "../../src/job/definition.js";
import type { Ledger } from "./ledger.js";
import { abortableSleep, between, sleep, type Rng } from "./rng.js";

export const ORDERED = "cancellableOrdered";
const IDS = 60;
/** Share of the ids the driver cancels. */
const CANCEL_SHARE = 0.5;

/** A payload: its name ("ID#k", unique in the run) and how long a run of it sleeps. */
export interface ChaosPayload {
  p: string;
  ms: number;
}

/** The ordered job the workers run when CHAOS_ORDERED=1 (bench/chaos-worker.ts). */
export function chaosOrdered(ledger: Ledger) {
  return {
    [ORDERED]: {
      retry: 25,
      backoff: () => 0,
      perform: async (id: string, payloads: ChaosPayload[], ctx: OrderedContext) => {
        await Promise.all([ledger.note("orun", id), ...payloads.map(({ p }) => ledger.started(`o:${p}`))]);
        await abortableSleep(Math.max(0, ...payloads.map(({ ms }) => ms)), ctx.signal);
        await Promise.all(payloads.map(({ p }) => ledger.finish(`o:${p}`, 1, true)));
      },
    },
  };
}

/** cancelled (it waited), held (a tick held its run: cancelled or cancelling, heard), unheard, not found (nothing waited or ran). */
export type OrderedAnswer = "cancelled" | "held" | "unheard" | "not found";

export interface OrderedJudgement {
  ids: number;
  payloads: number;
  asked: number;
  answers: Record<OrderedAnswer, number>;
  late: string[];
  takenAfter: string[];
  lost: string[];
}

type OrderedTickq = Pick<Tickq<JobRegistry, ReturnType<typeof chaosOrdered>>, "enqueueOrdered" | "jobs">;

/** Cancels `id`, sent again while it fails in transit; the last answer. */
async function cancelOnce(tq: OrderedTickq, id: string, ledger: Ledger): Promise<OrderedAnswer> {
  await ledger.note("osent", id);
  for (let tries = 0; ; tries++) {
    try {
      const r = await tq.jobs.cancelOrdered(ORDERED, id);
      await ledger.cancelReturned(`o:${id}`);
      if (r.from !== "running") return "cancelled";
      return r.state === "cancelled" || r.heard ? "held" : "unheard";
    } catch (error) {
      if (error instanceof TickqError && error.code === "NOT_FOUND") {
        await ledger.cancelReturned(`o:${id}`); // nothing waited or ran (or an earlier try took it)
        return "not found";
      }
      if (tries > 200) throw error;
      await sleep(50);
    }
  }
}

/**
 * Enqueues 1–4 payloads to each of the ids (`letter` keeps the adapters' apart) over most of
 * the window through `direct`, and cancels a share of them once each through `tq` (the faulted
 * path), 0–1 s after the id's first payload. Resolves with each cancel's answer.
 */
export async function driveOrdered(e: {
  direct: OrderedTickq;
  tq: OrderedTickq;
  ledger: Ledger;
  rng: Rng;
  windowMs: number;
  letter: string;
}): Promise<Map<string, OrderedAnswer>> {
  const answers = new Map<string, OrderedAnswer>();
  const ids = Array.from({ length: IDS }, (_, i) => `${e.letter}-ordered-${i}`);
  await Promise.all(
    ids.map(async (id) => {
      const first = between(e.rng, 0, e.windowMs * 0.6);
      const count = Math.floor(between(e.rng, 1, 5));
      const gaps = Array.from({ length: count }, () => between(e.rng, 100, 600));
      // Runs long enough, and cancels soon enough, that a good share finds its run held.
      const ms = gaps.map(() => between(e.rng, 300, 1_500));
      const cancelAt = e.rng() < CANCEL_SHARE ? first + between(e.rng, 0, 1_000) : undefined;
      // Half the cancels wait for the id's first run to start, so some find it held however long Redis
      // restarts pause ordered work (lib/tick/restart-hold.lua); the others land at random.
      const whenHeld = e.rng() < 0.5;
      await sleep(first);
      const cancelling =
        cancelAt === undefined
          ? undefined
          : (whenHeld ? runStarted(e.ledger, id, e.windowMs) : sleep(cancelAt - first)).then(async () =>
              answers.set(id, await cancelOnce(e.tq, id, e.ledger)),
            );
      for (let k = 0; k < count; k++) {
        const p = `${id}#${k}`;
        await e.ledger.note("oenq0", p);
        await e.direct.enqueueOrdered(ORDERED, { id, payload: { p, ms: ms[k]! } });
        await e.ledger.note("oenq", p);
        await sleep(gaps[k]!);
      }
      await cancelling;
    }),
  );
  return answers;
}

/** Resolves once a run of `id` started (the ledger's "orun" note), or after `withinMs`. */
async function runStarted(ledger: Ledger, id: string, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline && !(await ledger.notes("orun")).has(id)) await sleep(50);
}

/** Judges each payload of the ids `driveOrdered` fed (see the header). */
export async function judgeOrdered(e: {
  direct: OrderedTickq;
  ledger: Ledger;
  answers: Map<string, OrderedAnswer>;
  finished: Set<string>;
}): Promise<OrderedJudgement> {
  const { starts, returned } = await e.ledger.cancelTimes();
  const enqSent = await e.ledger.notes("oenq0");
  const enqDone = await e.ledger.notes("oenq");
  const sent = await e.ledger.notes("osent");
  const recorded = new Set<string>();
  for (let cursor: string | null = null; ; ) {
    const page = await e.direct.jobs.list("cancelled", { name: ORDERED, limit: 1_000, cursor });
    for (const job of page.jobs) for (const p of job.ordered?.payloads ?? []) recorded.add((p as ChaosPayload).p);
    cursor = page.cursor;
    if (!cursor) break;
  }
  const r: OrderedJudgement = {
    ids: new Set([...enqDone.keys()].map((p) => p.slice(0, p.lastIndexOf("#")))).size,
    payloads: enqDone.size,
    asked: e.answers.size,
    answers: { cancelled: 0, held: 0, unheard: 0, "not found": 0 },
    late: [],
    takenAfter: [],
    lost: [],
  };
  for (const answer of e.answers.values()) r.answers[answer]++;
  for (const p of enqSent.keys()) {
    const id = p.slice(0, p.lastIndexOf("#"));
    if (!recorded.has(p) && !e.finished.has(`o:${p}`)) r.lost.push(p);
    const at = returned.get(`o:${id}`);
    if (at === undefined) continue;
    const answer = e.answers.get(id);
    if ((enqDone.get(p) ?? Number.POSITIVE_INFINITY) < sent.get(id)!) {
      const late = (starts.get(`o:${p}`) ?? []).filter((ms) => ms > at);
      if (late.length > 0) r.late.push(`${p}: started ${late[0]! - at} ms after its cancel returned (${answer})`);
    }
    if (enqSent.get(p)! > at && recorded.has(p))
      r.takenAfter.push(`${p}: enqueued after its cancel returned (${answer})`);
  }
  return r;
}
