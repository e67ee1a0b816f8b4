// What kept events cost (part of bench/workflows.ts; alone: npx tsx
// bench/workflow-kept-events.ts [--events 2000]), on a private redis-server.
// Memory: EVENTS events of a typical webhook payload are sent, each to its own
// match (one log key each) and then all to one match (one log), with and
// without an `id`; MEMORY USAGE of the keys they left, over EVENTS: the bytes
// Redis holds per kept event. Round trips (report.roundTrips summed, starts
// and sendEvent counted as one each): a one-wait run whose event came before
// its wait parked (kept, taken at the park) beside one whose event found it
// parked, and with eventRetentionMs: 0 (the release before kept events).
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { createTickq } from "../src/index.js";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";

const DATA = { orderId: "ord_000000123", amount: 4200, currency: "EUR" };

async function keysBytes(redis: Redis, pattern: string): Promise<number> {
  let bytes = 0;
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    cursor = next;
    for (const key of keys) bytes += Number(await redis.memory("USAGE", key, "SAMPLES", "0"));
  } while (cursor !== "0");
  return bytes;
}

function app(client: Redis, prefix: string, eventRetentionMs?: number) {
  return createTickq({
    redis: ioredisAdapter(client),
    prefix,
    jobs: {},
    ...(eventRetentionMs === undefined ? {} : { eventRetentionMs }),
    workflows: {
      paid: {
        run: async (input: { order: string }, step) =>
          step.waitForEvent("paid", { event: "payment.confirmed", match: input.order }),
      },
    },
  });
}

async function memoryPerEvent(redis: Redis, url: string, events: number) {
  const rows: Record<string, string | number>[] = [];
  const cases = [
    { what: "each to its own match", match: (i: number) => `ord_${i}`, id: false },
    { what: "all to one match", match: () => "one", id: false },
    { what: "each to its own match, with an id", match: (i: number) => `ord_${i}`, id: true },
  ];
  for (const [k, c] of cases.entries()) {
    const client = new Redis(url);
    const prefix = `bkept${k}:`;
    const tq = app(client, prefix);
    for (let i = 0; i < events; i++)
      await tq.workflows.sendEvent("payment.confirmed", {
        match: c.match(i),
        data: DATA,
        ...(c.id ? { id: `evt_${i}` } : {}),
      });
    const logs = await keysBytes(redis, `${prefix}wf:log:*`);
    const ids = await keysBytes(redis, `${prefix}wf:eid:*`);
    rows.push({
      events: c.what,
      "kept copy, bytes/event": Math.round(logs / events),
      "id, bytes/event": c.id ? Math.round(ids / events) : "—",
      "data, bytes": JSON.stringify(DATA).length,
    });
    client.disconnect();
  }
  return rows;
}

async function tripsOfOneRun(tq: ReturnType<typeof app>, eventFirst: boolean, order: string): Promise<number> {
  let trips = 1; // the start
  const id = await tq.workflows.start("paid", { order });
  if (eventFirst) {
    await tq.workflows.sendEvent("payment.confirmed", { match: order, data: DATA });
    trips++;
  }
  for (let i = 0; i < 20; i++) {
    const report = await tq.tick({ budgetMs: 5_000 });
    trips += report.roundTrips;
    const run = await tq.workflows.get(id);
    if (run?.status === "completed") return trips;
    if (run?.status === "waiting" && !eventFirst) {
      await tq.workflows.sendEvent("payment.confirmed", { match: order, data: DATA });
      trips++;
      eventFirst = true;
    }
  }
  throw new Error(`bench/workflow-kept-events: run ${id} did not complete`);
}

async function roundTrips(url: string) {
  const client = new Redis(url);
  const kept = app(client, "bkeptrt:");
  const unkept = app(client, "bkeptrt0:", 0);
  const rows = [
    { run: "event sent before its wait parked (kept, taken at the park)", tq: kept, first: true },
    { run: "event sent while its wait is parked", tq: kept, first: false },
    { run: "event sent while its wait is parked, eventRetentionMs: 0", tq: unkept, first: false },
  ];
  const out: Record<string, string | number>[] = [];
  for (const [k, r] of rows.entries())
    out.push({
      "one run of one wait": r.run,
      "Redis requests (start + sendEvent + ticks)": await tripsOfOneRun(r.tq, r.first, `rt${k}`),
    });
  client.disconnect();
  return out;
}

export async function runKeptEventsBench(events: number): Promise<void> {
  if (events <= 0) return;
  const server = await startPrivate();
  const redis = new Redis(server.url);
  try {
    console.log(
      `\nKept events: ${events} events of ${JSON.stringify(DATA).length} bytes of data; MEMORY USAGE of what they left, private Redis`,
    );
    console.table(await memoryPerEvent(redis, server.url, events));
    console.table(await roundTrips(server.url));
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { events: { type: "string", default: "2000" } } });
  await runKeptEventsBench(Number(values.events));
}
