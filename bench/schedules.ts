// npm run bench, last table: what recurring jobs cost a tick. Round trips
// (report.roundTrips) and Redis commands (INFO commandstats, commands inside
// scripts included) of: an idle tick with no schedules; the first tick
// after a deploy of 1,000 schedules (it syncs the declaration); an idle tick
// with those 1,000 declared and none due; the tick where all 1,000 come due
// (claimed, enqueued and run), beside a tick that runs 1,000 queued jobs.
// On a private redis-server, so nothing else is counted; the schedule clock
// is moved to the top of the hour.
import { Redis } from "ioredis";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { findRedis, startPrivate, type FoundRedis } from "../src/platforms/node/find-redis.js";
import { createTickq, type Schedules, type TickReport } from "../src/index.js";
import { shiftRecurringClock } from "../src/recurring/clock-shift.js";
import { commandsProcessed } from "./wire.js";

const COUNT = 1_000;
const HOUR = 3_600_000;

function declaration(): Schedules<"noop"> {
  const schedules: Schedules<"noop"> = {};
  // half cron (a time zone with whole-hour offset), half fixed intervals: all due at the top of the hour
  for (let i = 0; i < COUNT; i++) {
    schedules[`s${i}`] =
      i % 2
        ? { cron: "0 * * * *", timezone: "Europe/Berlin", job: "noop", args: [i] }
        : { every: HOUR, job: "noop", args: [i] };
  }
  return schedules;
}

export async function runSchedulesBench(): Promise<void> {
  let server: FoundRedis;
  try {
    server = await startPrivate();
  } catch {
    server = await findRedis();
  }
  const redis = new Redis(server.url);
  const adapter = ioredisAdapter(redis);
  const prefix = `bench:schedules:${Date.now()}:`;
  const rows: Record<string, string | number>[] = [];
  const measure = async (scenario: string, tick: () => Promise<TickReport>) => {
    const before = await commandsProcessed(redis);
    const t = performance.now();
    const report = await tick();
    const ms = performance.now() - t;
    const commands = (await commandsProcessed(redis)) - before - 1; // less the INFO itself
    rows.push({
      scenario,
      "round trips": report.roundTrips,
      "Redis cmds (incl. scripts)": commands,
      "jobs enqueued": report.recurring,
      "jobs run": report.succeeded,
      ms: ms.toFixed(1),
    });
  };
  try {
    // load every script once (on another prefix): each figure below is of a warm Redis
    const warm = createTickq({
      redis: adapter,
      prefix: `${prefix}warm:`,
      jobs: { noop: () => {} },
      schedules: { w: { every: 60_000, job: "noop" } },
    });
    await warm.tick();
    await warm.schedules();
    const bare = createTickq({ redis: adapter, prefix, jobs: { noop: () => {} } });
    await bare.tick();
    await measure("idle tick, 0 schedules", () => bare.tick());
    await bare.enqueueBulk(Array.from({ length: COUNT }, (_, i) => ({ name: "noop", args: [i] })));
    await measure(`for comparison: ${COUNT} queued jobs (batch 100)`, () =>
      bare.tick({ batch: 100, concurrency: 100 }),
    );

    const tq = createTickq({ redis: adapter, prefix, jobs: { noop: () => {} }, schedules: declaration() });
    const [sec] = await redis.time();
    const topOfHour = Math.ceil((Number(sec) * 1000) / HOUR) * HOUR + 24 * HOUR;
    shiftRecurringClock(tq, { toMs: topOfHour - 30 * 60_000, redisNowMs: Number(sec) * 1000 });
    await measure(`first tick after deploying ${COUNT} (sync)`, () => tq.tick());
    await measure(`idle tick, ${COUNT} declared, none due`, () => tq.tick());
    shiftRecurringClock(tq, { byMs: 30 * 60_000 + 1_000 });
    await measure(`tick where ${COUNT} come due (batch 100)`, () => tq.tick({ batch: 100, concurrency: 100 }));
  } finally {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await server.stop();
  }
  console.log(
    `\nRecurring jobs: ${COUNT} schedules (half cron in Europe/Berlin, half every hour), ioredis, private Redis`,
  );
  console.table(rows);
}

if (import.meta.url === `file://${process.argv[1]}`) await runSchedulesBench();
