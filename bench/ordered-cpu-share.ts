// Is Redis the limit of the ordered "one each" row (issue 46)? Runs waves of one payload per id over
// `--ids` ids (each wave one enqueueOrderedBulk, then ticks of batch 100 until it ran: the peers row's
// tickq shape) on a private redis-server, and the same waves as no-op plain jobs, and prints for each
// the wall time a wave and the share of it each process spent on a CPU: Redis' main thread (INFO
// cpu's *_main_thread, where every script runs) and this process (process.cpuUsage). A wave is
// sequential, call after call, so the two shares and the time neither runs (the socket, the
// scheduler, waiting for a core) add up to the wall: a Redis at 100 % would be the limit. Wall-clock
// shares move with the machine's load: quote its load average beside them.
//   npx tsx bench/ordered-cpu-share.ts [--waves 200] [--ids 100] [--rounds 3]
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { createTickq } from "../src/index.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { startPrivate } from "../src/platforms/node/find-redis.js";

const { values } = parseArgs({
  options: {
    waves: { type: "string", default: "200" },
    ids: { type: "string", default: "100" },
    rounds: { type: "string", default: "3" },
  },
});
const waves = Number(values.waves);
const ids = Number(values.ids);
const rounds = Number(values.rounds);

const server = await startPrivate();
const client = new Redis(server.url);
const probe = new Redis(server.url);
let executed = 0;
let payloadsRun = 0;
/** Set by the overlapped shape: called by a wave's first execution, it sends the next wave's enqueue. */
let onFirstRun: (() => void) | undefined;
const tq = createTickq({
  redis: ioredisAdapter(client),
  prefix: "ocs:",
  jobs: { noop: (_args: [number, number]) => {} },
  ordered: {
    index: {
      perform: (_id: string, payloads: unknown[]) => {
        executed += 1;
        payloadsRun += payloads.length;
        const next = onFirstRun;
        onFirstRun = undefined;
        next?.();
      },
    },
  },
});

/** Redis' main thread's CPU seconds so far. */
async function redisCpu(): Promise<number> {
  const info = await probe.info("cpu");
  const read = (field: string) => Number(new RegExp(`${field}:([\\d.]+)`).exec(info)?.[1] ?? Number.NaN);
  return read("used_cpu_user_main_thread") + read("used_cpu_sys_main_thread");
}

const orderedItems = (w: number) =>
  Array.from({ length: ids }, (_, i) => ({ name: "index" as const, id: `id-${i}`, payload: { w, i } }));

async function orderedWave(w: number): Promise<void> {
  const until = executed + ids;
  await tq.enqueueOrderedBulk(orderedItems(w));
  while (executed < until) await tq.tick({ batch: 100, concurrency: 100, budgetMs: 60_000 });
}

/**
 * The same waves, the next one's enqueue sent once this one's first execution runs (its ids are
 * fetched and held): its payloads wait for their ids (n:ID) while this wave runs, one each, so none
 * merge, and the enqueue overlaps the tick instead of preceding it. What overlap alone would buy.
 */
let enqueued: Promise<unknown> | undefined;
async function overlappedWave(w: number): Promise<void> {
  enqueued ??= tq.enqueueOrderedBulk(orderedItems(w));
  await enqueued;
  const until = executed + ids;
  onFirstRun = () => void (enqueued = tq.enqueueOrderedBulk(orderedItems(w + 1)));
  while (executed < until) await tq.tick({ batch: 100, concurrency: 100, budgetMs: 60_000 });
}

async function plainWave(w: number): Promise<void> {
  await tq.enqueueBulk(
    Array.from({ length: ids }, (_, i) => ({ name: "noop" as const, args: [w, i] as [number, number] })),
  );
  for (let done = 0; done < ids; )
    done += (await tq.tick({ batch: 100, concurrency: 100, budgetMs: 60_000 })).succeeded;
}

async function measure(wave: (w: number) => Promise<void>) {
  executed = payloadsRun = 0;
  const redis0 = await redisCpu();
  const node0 = process.cpuUsage();
  const t = performance.now();
  for (let w = 0; w < waves; w++) await wave(w);
  const wallMs = performance.now() - t;
  const node = process.cpuUsage(node0);
  const redisMs = ((await redisCpu()) - redis0) * 1000;
  const nodeMs = (node.user + node.system) / 1000;
  if (wave === overlappedWave) {
    // the wave enqueued ahead of the last measured one runs before the next shape starts, unmeasured
    onFirstRun = undefined;
    await enqueued;
    enqueued = undefined;
    const until = executed + ids;
    while (executed < until) await tq.tick({ batch: 100, concurrency: 100, budgetMs: 60_000 });
    executed -= ids;
    payloadsRun -= ids;
  }
  if (wave !== plainWave && (executed !== waves * ids || payloadsRun !== executed))
    throw new Error(`${waves * ids} payloads ran as ${executed} executions of ${payloadsRun} payloads: some merged`);
  return { wallMs, redisMs, nodeMs, nodeSysMs: node.system / 1000 };
}

const pct = (part: number, whole: number) => `${((part / whole) * 100).toFixed(0)} %`;
console.log(
  `load average at start: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(", ")}`,
);
for (let w = 0; w < 20; w++) await orderedWave(-1 - w); // warm-up: every script loaded, V8 past its first compiles
for (let w = 0; w < 20; w++) await plainWave(-1 - w);
const rows = [];
for (let r = 0; r < rounds; r++) {
  for (const [shape, wave] of [
    ["ordered, one payload an id", orderedWave],
    ["ordered, next wave's enqueue overlapping", overlappedWave],
    ["plain no-op jobs", plainWave],
  ] as const) {
    const m = await measure(wave);
    rows.push({
      round: r + 1,
      shape,
      "wave ms": (m.wallMs / waves).toFixed(2),
      "Redis main thread": pct(m.redisMs, m.wallMs),
      "tick process": pct(m.nodeMs, m.wallMs),
      "of which kernel": pct(m.nodeSysMs, m.wallMs),
      "neither (wire, waits)": pct(m.wallMs - m.redisMs - m.nodeMs, m.wallMs),
      "Redis µs a job": ((m.redisMs * 1000) / (waves * ids)).toFixed(1),
      "tick process µs a job": ((m.nodeMs * 1000) / (waves * ids)).toFixed(1),
    });
  }
}
console.log(`${waves} waves of ${ids} ids (or plain jobs) a round; the shares are of the wall time`);
console.table(rows);
console.log(
  `load average at end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(", ")}`,
);
client.disconnect();
probe.disconnect();
await server.stop();
