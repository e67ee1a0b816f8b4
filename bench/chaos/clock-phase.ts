// The clock phase of `npm run chaos`, over one adapter: tick workers whose
// wall clock steps back and forth by up to 60 s (bench/clock-chaos-worker.ts)
// run long exclusive work — while-executing jobs over a few unique keys and
// ordered ids — while Redis is paused (CLIENT PAUSE) for less than a lease,
// again and again. Judged: no two runs of a key or an id overlapped, no
// fence went backwards, no run was aborted except during a pause (a lease
// that cannot be confirmed stops its runs, rightly; a clock step must not),
// nothing lost, nothing dead.
import { Redis } from "ioredis";
import { fileURLToPath } from "node:url";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { startUpstashLocal, type UpstashLocalServer } from "../../tools/upstash-local/server.js";
import { createTickq } from "../../src/index.js";
import { columnOf, mustBeZero, problemsOf, type Check, type Column } from "./checks.js";
import { clockChaosJobs, CLOCK_KEYS, ledgerNowMs, openClockLedger } from "./clock-jobs.js";
import { endpointEnv, type Endpoint } from "./connect.js";
import type { ChaosPhase, PhaseContext } from "./phase-types.js";
import { between, sleep } from "./rng.js";
import { startWorkers } from "./workers.js";

const WORKER = fileURLToPath(new URL("../clock-chaos-worker.ts", import.meta.url));
const JOBS = 24;
const PAYLOADS = 24;
const IDS = 4;

interface ClockResult {
  jobs: number;
  pauses: number;
  steps: number;
  overlaps: string[];
  backwards: string[];
  spurious: string[];
  inDoubt: number;
  lost: string[];
  dead: number;
  seconds: number;
  problems: string[];
  workerStderr: string[];
}

const CHECKS: Check<ClockResult>[] = [
  { label: "clock: exclusive jobs + ordered payloads", value: (r) => r.jobs },
  { label: "clock: Redis pauses shorter than a lease", value: (r) => r.pauses },
  { label: "clock: wall-clock steps of the workers (±60 s)", value: (r) => r.steps },
  { label: "clock: runs stopped for a lease in doubt", value: (r) => r.inDoubt },
  mustBeZero(
    "clock: overlapping runs of a key or an id",
    (r) => r.overlaps.length,
    (r) => r.overlaps,
  ),
  mustBeZero(
    "clock: fences that went backwards",
    (r) => r.backwards.length,
    (r) => r.backwards,
  ),
  mustBeZero(
    "clock: spurious aborts (outside a pause)",
    (r) => r.spurious.length,
    (r) => r.spurious,
  ),
  mustBeZero(
    "clock: lost",
    (r) => r.lost.length,
    (r) => r.lost,
  ),
  mustBeZero("clock: dead", (r) => r.dead),
  { label: "seconds", value: (r) => r.seconds },
];

async function run(ctx: PhaseContext): Promise<Column> {
  const started = performance.now();
  const prefix = `chaos-clock:${ctx.runId}:${ctx.adapter}:`;
  const ledger = openClockLedger(ctx.ledgerUrl, `tickq-chaos-clock:${ctx.runId}:${ctx.adapter}:`);
  const direct = new Redis(ctx.redis.url);
  direct.on("error", () => {});
  const token = `clock-${ctx.runId}-0123456789abcdef`;
  let rest: UpstashLocalServer | undefined;
  let endpoint: Endpoint = { adapter: "ioredis", url: ctx.redis.url };
  if (ctx.adapter === "upstash") {
    rest = await startUpstashLocal({ redisUrl: ctx.redis.url, token });
    endpoint = { adapter: "upstash", url: rest.url, token };
  }
  const tq = createTickq({ redis: ioredisAdapter(direct), prefix, ...clockChaosJobs(ledger) });
  const pauses: { from: number; to: number }[] = [];
  const problems: string[] = [];
  // Runs of 0.3–1.2 leases: long enough for a pause to fall inside, short enough for a tick's budget.
  const ms = () => Math.round(between(ctx.rng, 0.3, 1.2) * ctx.leaseMs);
  await tq.enqueueBulk(
    Array.from({ length: JOBS }, (_, n) => ({
      name: "held" as const,
      args: [CLOCK_KEYS[n % CLOCK_KEYS.length]!, ms(), n] as [string, number, number],
      unique: "while-executing" as const,
    })),
  );
  await tq.enqueueOrderedBulk(
    Array.from({ length: PAYLOADS }, (_, n) => ({ name: "seq", id: `id${n % IDS}`, payload: { n, ms: ms() } })),
  );
  const workers = startWorkers(
    ctx.workers,
    {
      ...endpointEnv(endpoint),
      PREFIX: prefix,
      LEDGER_URL: ctx.ledgerUrl,
      LEDGER_PREFIX: ledger.key(""),
      LEASE_MS: String(ctx.leaseMs),
      BUDGET_MS: String(ctx.budgetMs),
      SEED: String(Math.floor(ctx.rng() * 1e6)),
      CLOCK_STEP_MS: "60000",
    },
    WORKER,
  );
  const planned = [
    ...Array.from({ length: JOBS }, (_, n) => `job:${n}`),
    ...Array.from({ length: PAYLOADS }, (_, n) => `payload:${n}`),
  ];
  const doneCount = () => ledger.redis.scard(ledger.key("done"));
  try {
    for (let i = 0; i < ctx.perKind; i++) {
      await sleep(between(ctx.rng, 300, 900));
      const pauseMs = Math.round(between(ctx.rng, 0.7, 0.95) * ctx.leaseMs); // often past the guard's margin: runs stopped, rightly
      const from = await ledgerNowMs(ledger);
      await direct.call("CLIENT", "PAUSE", String(pauseMs), "ALL");
      await sleep(pauseMs);
      pauses.push({ from, to: (await ledgerNowMs(ledger)) + 50 });
      ctx.log(`clock ${ctx.adapter}: pause ${i + 1}/${ctx.perKind} of ${pauseMs} ms`);
    }
    for (
      const until = performance.now() + ctx.settleSeconds * 1000;
      performance.now() < until && (await doneCount()) < planned.length;
    )
      await sleep(250);
  } finally {
    await workers.stop(10_000);
  }
  const done = new Set(await ledger.redis.smembers(ledger.key("done")));
  const aborts = (await ledger.redis.lrange(ledger.key("aborts"), 0, -1)).map(
    (a) => JSON.parse(a) as { what: string; at: number; name?: string; message?: string },
  );
  // A run may be stopped while its lease cannot be confirmed: during a pause, or up to a lease after it.
  const inPause = (at: number) => pauses.some((p) => at >= p.from && at <= p.to + ctx.leaseMs);
  const deadline = (a: { message?: string }) => a.message === "tick deadline reached";
  const stats = await tq.stats();
  const result: ClockResult = {
    jobs: planned.length,
    pauses: pauses.length,
    steps: Number(await ledger.redis.get(ledger.key("steps"))) || 0,
    overlaps: await ledger.redis.lrange(ledger.key("overlaps"), 0, -1),
    backwards: await ledger.redis.lrange(ledger.key("backwards"), 0, -1),
    spurious: aborts.filter((a) => !deadline(a) && !inPause(a.at)).map((a) => `${a.what}: ${a.name} ${a.message}`),
    inDoubt: aborts.filter((a) => a.name === "TickqLeaseInDoubt").length,
    lost: planned.filter((p) => !done.has(p)),
    dead: stats.dead + (stats.ordered.seq?.dead ?? 0),
    seconds: Math.round((performance.now() - started) / 1000),
    problems,
    workerStderr: workers.stderr(),
  };
  if (result.pauses < ctx.perKind) problems.push(`clock: ${result.pauses} pauses of the ${ctx.perKind} asked`);
  problems.push(...problemsOf(CHECKS, result));
  const column = columnOf(`clock ${ctx.adapter}`, CHECKS, result);
  const left = await ledger.redis.keys(ledger.key("*"));
  if (left.length > 0) await ledger.redis.del(...left);
  ledger.close();
  direct.disconnect();
  await rest?.close();
  return column;
}

export const CLOCK_PHASE: ChaosPhase = { name: "clock", run };
