// A migration between partition counts (migratePartitions), there and back,
// each run cut at random calls after Redis ran them (the reply lost, as a cut
// connection loses it) and run again until it finishes. Around it, what the
// old layout promised is put to the test the way clients do: every caller's
// jid that ran or waits is enqueued again, every until-executed key and every
// debounce key gets a duplicate, and a rate key whose limit an hour was spent
// before the move has jobs waiting. Each must hold after both moves: no jid
// runs twice, no key holds two jobs, the limit counts the starts of before,
// and nothing is lost. The cuts are the faults; Redis is not faulted here.
import { startUpstashLocal, type UpstashLocalServer } from "../../tools/upstash-local/server.js";
import { createTickq, migratePartitions, type RedisAdapter } from "../../src/index.js";
import { columnOf, mustBeZero, mustMatch, problemsOf, type Check, type Column } from "./checks.js";
import { openEndpoint, type Endpoint } from "./connect.js";
import type { ChaosPhase, PhaseContext } from "./phase-types.js";

const HOUR = 3_600_000;
const RATE_LIMIT = 5;
/** Jobs that ran before the moves; caller's jids and until-executed keys left waiting before each move; debounce keys. */
const SIZE = { ran: 200, queued: 100, unique: 50, debounced: 50 };
/** Cuts asked of each migration run: a run cut takes seconds over HTTP, so fewer than the other phases' faults. */
const cutsOf = (perKind: number) => Math.max(2, Math.min(perKind, 8));

interface MigrationResult {
  cutsAsked: number;
  cuts: number;
  ranTwice: string[];
  lost: string[];
  uniqueDoubled: string[];
  debounceDoubled: string[];
  rateStarts: number;
  problems: string[];
}

const checks: Check<MigrationResult>[] = [
  mustMatch(
    "migration runs cut and resumed / asked",
    (r) => r.cuts,
    (r) => r.cutsAsked,
    "each cut must land inside a run",
  ),
  mustBeZero(
    "jids run twice across a migration",
    (r) => r.ranTwice.length,
    (r) => r.ranTwice,
  ),
  mustBeZero(
    "jobs lost across a migration",
    (r) => r.lost.length,
    (r) => r.lost,
  ),
  mustBeZero(
    "until-executed keys queued or run twice",
    (r) => r.uniqueDoubled.length,
    (r) => r.uniqueDoubled,
  ),
  mustBeZero(
    "debounce keys with two jobs waiting",
    (r) => r.debounceDoubled.length,
    (r) => r.debounceDoubled,
  ),
  mustBeZero(`rate key starts over its limit of ${RATE_LIMIT} an hour`, (r) => Math.max(0, r.rateStarts - RATE_LIMIT)),
];

/** An adapter whose `at`-th script call fails once Redis ran it; `cut()` tells whether it did. */
function cutAt(adapter: RedisAdapter, at: number): { adapter: RedisAdapter; cut: () => boolean } {
  let calls = 0;
  const cut = async <T>(reply: Promise<T>): Promise<T> => {
    const value = await reply;
    if (++calls === at) throw new Error("migration cut");
    return value;
  };
  return {
    adapter: {
      ...adapter,
      cluster: adapter.cluster,
      evalsha: (sha, keys, args) => cut(adapter.evalsha(sha, keys, args)),
      eval: (script, keys, args) => cut(adapter.eval(script, keys, args)),
    },
    cut: () => calls >= at,
  };
}

async function runMigration(ctx: PhaseContext): Promise<MigrationResult> {
  const prefix = `chaos:${ctx.runId}:migrate-${ctx.adapter}:`;
  let rest: UpstashLocalServer | undefined;
  let endpoint: Endpoint = { adapter: "ioredis", url: ctx.redis.url };
  if (ctx.adapter === "upstash") {
    rest = await startUpstashLocal({ redisUrl: ctx.redis.url, token: `chaos-migrate-${ctx.runId}` });
    endpoint = { adapter: "upstash", url: rest.url, token: rest.token };
  }
  const opened = openEndpoint(endpoint);
  const runs = new Map<string, number>();
  const count = (label: string) => void runs.set(label, (runs.get(label) ?? 0) + 1);
  let rateStarts = 0;
  const jobs = {
    step: ([label]: [string]) => count(label),
    once: { perform: ([label]: [string]) => count(label), uniqueKey: ([label]: [string]) => label },
    limited: {
      perform: () => void rateStarts++,
      rateLimit: { key: () => "api", limit: RATE_LIMIT, periodMs: HOUR },
    },
    ping: {
      perform: ([label]: [string]) => count(label),
      debounce: { key: ([label]: [string]) => label, delayMs: HOUR, maxDelayMs: 2 * HOUR },
    },
  };
  const quiet = { info: () => {}, warn: () => {}, error: () => {} };
  const make = (partitions: number) => createTickq({ redis: opened.adapter, prefix, partitions, jobs, logger: quiet });
  const labels = (kind: string, n: number) => Array.from({ length: n }, (_, i) => `${kind}${i}`);
  const ran = labels("ran", SIZE.ran);
  const debounced = labels("ping", SIZE.debounced);
  const jids = [...ran];
  const result: MigrationResult = {
    cutsAsked: 2 * cutsOf(ctx.perKind),
    cuts: 0,
    ranTwice: [],
    lost: [],
    uniqueDoubled: [],
    debounceDoubled: [],
    rateStarts: 0,
    problems: [],
  };
  type Deployment = ReturnType<typeof make>;
  /**
   * Ticks until every label of `expected` ran and two ticks in a row fetched nothing, or until the
   * settle time is out. A claimed job (until-executed) waits in the schedule while the restart pause
   * holds the prefix (lib/tick/restart-hold.lua: an earlier phase restarted this Redis, and a new
   * prefix is held for a lease from the server's start): waiting is not lost.
   */
  const drain = async (tq: Deployment, expected: Iterable<string>) => {
    const labels = [...expected];
    const deadline = Date.now() + ctx.settleSeconds * 1000;
    for (let idle = 0; ; ) {
      const report = await tq.tick({ budgetMs: ctx.budgetMs });
      idle = report.fetched === 0 ? idle + 1 : 0;
      if (idle >= 2 && (labels.every((label) => runs.has(label)) || Date.now() > deadline)) return;
      if (idle > 0) await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  /** Jobs left waiting in the layout about to move: caller's jids and until-executed keys; the jid each key's job holds. */
  const wait = async (tq: Deployment, tag: string) => {
    const queued = labels(`queued-${tag}-`, SIZE.queued);
    jids.push(...queued);
    await tq.enqueueBulk(queued.map((label) => ({ name: "step" as const, args: [label], jid: label })));
    const held = new Map<string, string>();
    for (const label of labels(`unique-${tag}-`, SIZE.unique))
      held.set(label, await tq.enqueue("once", [label], { unique: "until-executed" }));
    return held;
  };
  /** What clients do after a move: every jid enqueued again, a duplicate of each key that waited, each debounce key again. */
  const sendAgain = async (tq: Deployment, held: Map<string, string>) => {
    await tq.enqueueBulk(jids.map((label) => ({ name: "step" as const, args: [label], jid: label })));
    for (const [label, jid] of held) {
      const answer = await tq.enqueue("once", [label], { unique: "until-executed" });
      if (answer !== jid) result.uniqueDoubled.push(`${label}: a duplicate was queued beside ${jid}`);
    }
    for (const label of debounced) await tq.enqueue("ping", [label]);
  };
  const migrate = async (to: number) => {
    for (let k = 0; k < cutsOf(ctx.perKind); k++) {
      // Early in a run: the last runs of a move have little left to move, and a run that ends uncut ends the move.
      const cutting = cutAt(opened.adapter, 1 + Math.floor(ctx.rng() * 40));
      ctx.log(`migration ${ctx.adapter}: to ${to} partitions, cut ${k + 1}`);
      try {
        await migratePartitions({ redis: cutting.adapter, prefix, partitions: to, batch: 50, logger: quiet });
        return;
      } catch (error) {
        if (!(error instanceof Error && error.message.includes("migration cut"))) throw error;
      }
      if (cutting.cut()) result.cuts++;
    }
    await migratePartitions({ redis: opened.adapter, prefix, partitions: to, batch: 50, logger: quiet });
  };
  try {
    const old = make(1);
    await old.enqueueBulk(ran.map((label) => ({ name: "step" as const, args: [label], jid: label })));
    await old.enqueueBulk(Array.from({ length: RATE_LIMIT }, () => ({ name: "limited" as const, args: [] })));
    await drain(old, ran);
    for (const label of debounced) await old.enqueue("ping", [label]);
    await old.enqueueBulk(Array.from({ length: RATE_LIMIT }, () => ({ name: "limited" as const, args: [] })));
    const heldInOne = await wait(old, "1");

    await migrate(3);
    const three = make(3);
    await sendAgain(three, heldInOne);
    await drain(three, [...jids, ...heldInOne.keys()]);
    const heldInThree = await wait(three, "3");
    await migrate(1);
    const one = make(1);
    await sendAgain(one, heldInThree);
    await drain(one, [...jids, ...heldInOne.keys(), ...heldInThree.keys()]);

    const unique = [...heldInOne.keys(), ...heldInThree.keys()];
    for (const label of [...jids, ...unique]) {
      const n = runs.get(label) ?? 0;
      if (n > 1) (label.startsWith("unique") ? result.uniqueDoubled : result.ranTwice).push(`${label} ran ${n} times`);
      if (n === 0) result.lost.push(`${label} never ran`);
    }
    const waiting = (await one.jobs.list("scheduled", { limit: 1_000 })).jobs;
    for (const label of debounced) {
      const n = waiting.filter((j) => j.name === "ping" && (j.job.args as string[])[0] === label).length;
      if (n > 1) result.debounceDoubled.push(`${label}: ${n} jobs wait`);
      if (n === 0) result.lost.push(`${label}: no job waits`);
    }
    result.rateStarts = rateStarts;
    result.problems.push(...problemsOf(checks, result));
  } finally {
    opened.close();
    await rest?.close();
  }
  return result;
}

export const migrationPhase: ChaosPhase = {
  name: "migration",
  async run(ctx): Promise<Column> {
    return columnOf(`migration ${ctx.adapter}`, checks, await runMigration(ctx));
  },
};
