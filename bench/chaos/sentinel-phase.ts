// The Sentinel failover phase: a primary, a replica and a Sentinel
// (bench/chaos/replicated-redis.ts); tick loops and an enqueuer reach them
// through ioredis' Sentinel support (`{ sentinels, name }`) with
// `durability: { replicas: 1 }`. Faults: the primary SIGKILLed (restarted
// as a replica once Sentinel has promoted the other), and the primary
// frozen by SIGSTOP for ~3.5 s, long enough for a failover while clients
// still write to it when it wakes. After each, the harness waits until
// Sentinel and both nodes agree again (sentinel-settle.ts) before the next.
// Judged, all in this process:
//   lost                 an acknowledged enqueue (plain job, or an ordered
//                        payload) that never ran
//   fences not grown     a run of a unique key or an ordered id whose fence
//                        was not above the last successful run's
//   processed            stats().processed against the jobs acknowledged:
//                        each plain job succeeds once, so a count Redis
//                        forgot, or one counted twice, shows
import { Redis } from "ioredis";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { createTickq, type Tickq } from "../../src/index.js";
import type { OrderedContext } from "../../src/ordered/types.js";
import type { JobContext } from "../../src/job/context.js";
import { columnOf, mustBeZero, mustMatch, problemsOf, type Check, type Column } from "./checks.js";
import { MASTER_NAME, startReplicatedRedis, type ReplicatedRedis } from "./replicated-redis.js";
import { settleReplication } from "./sentinel-settle.js";
import { between, seededRng, sleep, type Rng } from "./rng.js";

export interface SentinelOptions {
  /** Plain jobs; a quarter are unique (while-executing) over `keys` keys. */
  jobs: number;
  orderedPayloads: number;
  ids: number;
  keys: number;
  tickLoops: number;
  /** Failovers of each kind: SIGKILL, SIGSTOP. */
  failoversPerKind: number;
  freezeMs: number;
  /** The durability option on (the phase's point) or off (to see what it saves). */
  durability: boolean;
  seed: number;
  log?: (line: string) => void;
}

export interface SentinelResult {
  durability: boolean;
  jobs: number;
  acknowledged: number;
  lost: number;
  payloads: number;
  payloadsLost: number;
  runs: number;
  fencesNotGrown: number;
  failovers: { kill: number; freeze: number };
  failoversAsked: number;
  enqueueRetries: number;
  /** Times the harness put the replication right where Sentinel did not (sentinel-settle.ts). */
  repairs: number;
  lostIds: string[];
  lostPayloads: string[];
  notGrown: string[];
  processed: number;
  succeededEvents: number;
  seconds: number;
}

const PREFIX = "sentinel-chaos:";
const ORDERED_PREFIX = "sentinel-chaos-ordered:";
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

function sentinelClient(sentinelPort: number): Redis {
  const client = new Redis({
    sentinels: [{ host: "127.0.0.1", port: sentinelPort }],
    name: MASTER_NAME,
    // No failover detector: a client keeps writing to a frozen primary once
    // it wakes, until Sentinel demotes it, which is the window WAIT closes.
    maxRetriesPerRequest: 3,
    // A demoted primary answers writes with READONLY: reconnect, and Sentinel names the new one.
    reconnectOnError: (error) => (/READONLY/.test(error.message) ? 2 : false),
  });
  client.on("error", () => {});
  return client;
}

interface Observed {
  ran: Set<string>;
  seen: Set<number>;
  runs: number;
  /** Highest fence of a successful run, per key or id. */
  fences: Map<string, number>;
  notGrown: string[];
  succeededEvents: number;
}

function fenced(observed: Observed, key: string, fence: number | undefined): void {
  observed.runs++;
  const last = observed.fences.get(key) ?? 0;
  if (fence === undefined || fence <= last) observed.notGrown.push(`${key}: fence ${fence} after ${last}`);
}

function tickqs(client: Redis, o: SentinelOptions, observed: Observed): { plain: Tickq<never>; ordered: Tickq<never> } {
  const common = {
    redis: ioredisAdapter(client),
    logger: quiet,
    redisTimeoutMs: 3_000,
    maxResurrections: 1_000,
    ...(o.durability ? { durability: { replicas: 1, timeoutMs: 1_000 } } : {}),
  };
  const plain = createTickq({
    ...common,
    prefix: PREFIX,
    on: { succeeded: () => void observed.succeededEvents++ },
    jobs: {
      plain: ([id]: [string]) => void observed.ran.add(id),
      unique: {
        uniqueKey: ([, key]: [string, string]) => key,
        perform: ([id, key]: [string, string], ctx: JobContext) => {
          fenced(observed, key, ctx.fence);
          observed.ran.add(id);
          observed.fences.set(key, Math.max(observed.fences.get(key) ?? 0, ctx.fence ?? 0));
        },
      },
    },
  });
  const ordered = createTickq({
    ...common,
    prefix: ORDERED_PREFIX,
    jobs: {},
    ordered: {
      account: {
        perform: (id: string, payloads: { n: number }[], ctx: OrderedContext) => {
          fenced(observed, id, ctx.fence);
          for (const p of payloads) observed.seen.add(p.n);
          observed.fences.set(id, Math.max(observed.fences.get(id) ?? 0, ctx.fence));
        },
      },
    },
  });
  return { plain: plain as unknown as Tickq<never>, ordered: ordered as unknown as Tickq<never> };
}

/** Sends `send` until it succeeds; returns how many times it was sent again. */
async function untilSent(send: () => Promise<unknown>): Promise<number> {
  for (let again = 0; ; again++) {
    try {
      await send();
      return again;
    } catch {
      await sleep(200);
    }
  }
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return true;
    await sleep(100);
  }
  return false;
}

/**
 * One failover: the current primary killed (and started again) or frozen;
 * resolves once Sentinel and both nodes agree again (sentinel-settle.ts).
 * `moved`: Sentinel named the other node, which is what the phase counts.
 */
async function failover(
  servers: ReplicatedRedis,
  kind: "kill" | "freeze",
  o: Pick<SentinelOptions, "freezeMs" | "log">,
): Promise<{ moved: boolean; repairs: number }> {
  const port = await servers.primaryPort();
  const node = servers.nodes.find((n) => n.port === port)!;
  let moved: boolean;
  if (kind === "kill") {
    await node.kill();
    moved = await waitFor(async () => (await servers.primaryPort()) !== port, 30_000);
    // It comes back as a replica of the node Sentinel names now, or, if
    // Sentinel still names it, as the primary it was (a replica of itself
    // would never sync). Whatever Sentinel does next, settleReplication waits for it.
    const named = await servers.primaryPort();
    await node.start(named === port ? undefined : named);
  } else {
    await node.freeze(o.freezeMs);
    moved = await waitFor(async () => (await servers.primaryPort()) !== port, 5_000);
  }
  const repairs = await settleReplication(servers, { log: o.log });
  return { moved, repairs };
}

/** The phase's problems: every must-be-0 row that is not, fewer failovers than asked, a miscount. */
export function sentinelProblems(r: SentinelResult): string[] {
  return problemsOf(CHECKS, r);
}

export async function runSentinelPhase(o: SentinelOptions): Promise<SentinelResult> {
  const started = Date.now();
  const rng: Rng = seededRng(o.seed);
  const log = o.log ?? (() => {});
  const servers = await startReplicatedRedis({ sentinel: true });
  const observed: Observed = {
    ran: new Set(),
    seen: new Set(),
    runs: 0,
    fences: new Map(),
    notGrown: [],
    succeededEvents: 0,
  };
  const clients: Redis[] = [];
  const open = () => {
    const client = sentinelClient(servers.sentinelPort!);
    clients.push(client);
    return tickqs(client, o, observed);
  };
  let stopping = false;
  const failovers = { kill: 0, freeze: 0 };
  let enqueueRetries = 0;
  let repairs = 0;
  try {
    const loops = Array.from({ length: o.tickLoops }, async () => {
      const { plain, ordered } = open();
      while (!stopping) {
        let more = false;
        for (const tq of [plain, ordered]) {
          try {
            more = (await tq.tick({ budgetMs: 1_500, leaseMs: 2_000, batch: 20, concurrency: 5 })).more || more;
          } catch {
            await sleep(200);
          }
        }
        if (!more) await sleep(50);
      }
    });

    const enqueuer = open();
    const acknowledged = new Set<string>();
    const payloads = new Set<number>();
    const enqueueing = (async () => {
      for (let i = 0; i < Math.max(o.jobs, o.orderedPayloads); i += 20) {
        const chunk = Array.from({ length: Math.min(20, Math.max(0, o.jobs - i)) }, (_, k) => {
          const id = `j${i + k}`;
          return (i + k) % 4 === 0
            ? {
                name: "unique" as never,
                args: [id, `key${between(rng, 0, o.keys - 1)}`],
                jid: id,
                unique: "while-executing" as const,
              }
            : { name: "plain" as never, args: [id], jid: id };
        });
        if (chunk.length > 0) {
          enqueueRetries += await untilSent(() => enqueuer.plain.enqueueBulk(chunk as never));
          for (const job of chunk) acknowledged.add(job.jid);
        }
        const ns = Array.from({ length: Math.min(20, Math.max(0, o.orderedPayloads - i)) }, (_, k) => i + k);
        if (ns.length > 0) {
          const batch = ns.map((n) => ({ name: "account" as never, id: `id${n % o.ids}`, payload: { n }, score: n }));
          enqueueRetries += await untilSent(() => enqueuer.ordered.enqueueOrderedBulk(batch as never));
          for (const n of ns) payloads.add(n);
        }
        await sleep(between(rng, 5, 30));
      }
    })();

    // Sentinel may still be finding the replica: no fault before it knows the whole topology.
    repairs += await settleReplication(servers, { log });
    for (let f = 0; f < 2 * o.failoversPerKind; f++) {
      const kind = f % 2 === 0 ? "kill" : "freeze";
      await sleep(between(rng, 500, 1_500));
      log(`sentinel: failover ${f + 1}/${2 * o.failoversPerKind} by ${kind === "kill" ? "SIGKILL" : "SIGSTOP"}`);
      const done = await failover(servers, kind, o);
      if (done.moved) failovers[kind]++;
      repairs += done.repairs;
    }
    await enqueueing;
    const done = () =>
      [...acknowledged].every((id) => observed.ran.has(id)) && [...payloads].every((n) => observed.seen.has(n));
    await waitFor(async () => done(), 90_000);
    stopping = true;
    await Promise.all(loops);

    const stats = await enqueuer.plain.stats();
    const lost = [...acknowledged].filter((id) => !observed.ran.has(id));
    const payloadsLost = [...payloads].filter((n) => !observed.seen.has(n));
    return {
      durability: o.durability,
      jobs: o.jobs,
      acknowledged: acknowledged.size,
      lost: lost.length,
      payloads: payloads.size,
      payloadsLost: payloadsLost.length,
      runs: observed.runs,
      fencesNotGrown: observed.notGrown.length,
      failovers,
      failoversAsked: o.failoversPerKind,
      enqueueRetries,
      repairs,
      lostIds: lost,
      lostPayloads: payloadsLost.map(String),
      notGrown: observed.notGrown,
      processed: stats.processed,
      succeededEvents: observed.succeededEvents,
      seconds: Math.round((Date.now() - started) / 1000),
    };
  } finally {
    stopping = true;
    for (const c of clients) c.disconnect();
    await servers.stop();
  }
}

const CHECKS: Check<SentinelResult>[] = [
  { label: "durability", value: (r) => (r.durability ? "replicas: 1" : "off") },
  {
    label: "failovers: SIGKILL / SIGSTOP",
    value: (r) => `${r.failovers.kill} / ${r.failovers.freeze}`,
    problem: (r) =>
      r.failovers.kill >= r.failoversAsked && r.failovers.freeze >= r.failoversAsked
        ? undefined
        : `failovers: ${r.failovers.kill} + ${r.failovers.freeze} of ${r.failoversAsked} of each kind happened`,
  },
  { label: "jobs acknowledged", value: (r) => r.acknowledged },
  { label: "ordered payloads acknowledged", value: (r) => r.payloads },
  { label: "enqueue calls sent again", value: (r) => r.enqueueRetries },
  { label: "replication the harness repaired", value: (r) => r.repairs },
  mustBeZero(
    "lost jobs",
    (r) => r.lost,
    (r) => r.lostIds,
  ),
  mustBeZero(
    "lost payloads",
    (r) => r.payloadsLost,
    (r) => r.lostPayloads,
  ),
  { label: "fenced runs", value: (r) => r.runs },
  mustBeZero(
    "fences that did not grow",
    (r) => r.fencesNotGrown,
    (r) => r.notGrown,
  ),
  mustMatch(
    "processed: stats() / jobs acknowledged",
    (r) => r.processed,
    (r) => r.acknowledged,
    "every job succeeds once: Redis forgot acks, or counted one twice",
  ),
  // A tick that gave up on a call Redis had run fires no events for it: fewer than processed is no miscount.
  { label: "acks whose reply came back (succeeded events)", value: (r) => r.succeededEvents },
  { label: "seconds", value: (r) => r.seconds },
];

/** The phase's column. A run with durability off fails it too: that column shows what the option saves. */
export function sentinelColumn(name: string, r: SentinelResult): Column {
  return columnOf(name, CHECKS, { ...r, problems: problemsOf(CHECKS, r) });
}
