// Where a tick over HTTP leaves slots idle with real jobs: tickq over
// @upstash/redis through the local REST server at `--latency-ms` a request,
// the jobs of bench/upstash-realistic.ts (0–100 ms, seeded), concurrency 50.
// Each handler records when it starts and ends, each request when it went
// and came back; the drain's slot-time (concurrency × wall time) is split
// into the work asked for (the sleeps' nominal ms), what the timers added
// (a sleep of n ms ends after n), and idle slot-time by phase: before the
// first job starts (the tick's first request), the body, the tail (after
// the last fetch that brought jobs came back, the last jobs with nothing
// left to start), and after the last job ended (the last acks). The body's
// idle time is then split by cause: a slot idle while the tick held no job
// (the fetch came late), or while jobs were held (the tick did not start
// them at once). Each run sits beside one of an in-memory pool (no Redis),
// the ceiling of the same jobs on this machine at this load, with its own
// timer overrun; "at a request" reads how much of tickq's overrun fell on
// jobs due as one of its requests went or came back.
//   npx tsx bench/upstash-occupancy.ts [--latency-ms 20] [--batch 100] [--jobs 4000] [--runs 3] [--seed 1]
//     [--timeline 100]   also print the mean occupancy per that many ms
//     [--gaps]           also print the longest stretches with slots idle and no job held
//     [--server-process] the REST server in a child process (as a real one is elsewhere), not in
//                        this one: its work then delays no timer of the tick's
//     [--private-redis]  on a redis-server of its own (no other work's scripts delay its requests)
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { performance as perfHooks } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { benchUpstashClient } from "./upstash.js";
import { findRedis, startPrivate } from "../src/platforms/node/find-redis.js";
import { createTickq } from "../src/index.js";
import { upstashAdapter } from "../src/redis/upstash.js";
import type { RedisAdapter } from "../src/redis/types.js";
import { startUpstashLocal } from "../tools/upstash-local/server.js";
import { durations, limitOf } from "./jobs.js";
import { CONCURRENCY } from "./realistic.js";

const { values } = parseArgs({
  options: {
    "latency-ms": { type: "string", default: "20" },
    batch: { type: "string", default: "100" },
    jobs: { type: "string", default: "4000" },
    runs: { type: "string", default: "3" },
    seed: { type: "string", default: "1" },
    timeline: { type: "string", default: "0" },
    gaps: { type: "boolean", default: false },
    "server-process": { type: "boolean", default: false },
    "private-redis": { type: "boolean", default: false },
  },
});

const now = () => performance.now();
// Requests this process sent (the count when the REST server is a child process).
let sentRequests = 0;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

interface Trace {
  starts: number[];
  ends: number[];
  nominal: number[];
  requests: { sent: number; back: number; fetched: number }[];
}

/** The adapter, each request's send and reply times recorded. */
function traced(adapter: RedisAdapter, trace: () => Trace): RedisAdapter {
  const timed =
    (call: RedisAdapter["evalsha"]): RedisAdapter["evalsha"] =>
    async (s, keys, args) => {
      const sent = now();
      sentRequests++;
      const reply = await call(s, keys, args);
      trace().requests.push({ sent, back: now(), fetched: JSON.stringify(reply).split("sleep").length - 1 });
      return reply;
    };
  return { ...adapter, evalsha: timed(adapter.evalsha), eval: timed(adapter.eval) };
}

/**
 * The same jobs through an in-memory pool of CONCURRENCY slots refilled the
 * moment one frees (bench/systems/pool.ts): what this machine's timers and
 * the last wave of jobs leave of the limit, in the same run.
 */
async function poolDrain(jobs: readonly number[]): Promise<{ rate: number; overrun: number }> {
  let next = 0;
  // What the sleeps took past their nominal ms, summed: the pool's share of late timers.
  let late = 0;
  const t0 = now();
  const slot = async () => {
    while (next < jobs.length) {
      const ms = jobs[next++]!;
      const started = now();
      if (ms > 0) await new Promise((r) => setTimeout(r, ms));
      late += now() - started - ms;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, slot));
  const wall = now() - t0;
  return { rate: (jobs.length / wall) * 1000, overrun: late / (CONCURRENCY * wall) };
}

/** The REST server in a child process (tools/upstash-local/main.ts); requests() counts what this process sent. */
async function childServer(redisUrl: string, latencyMs: number) {
  const token = "bench-token-0123456789";
  const port = 7100 + Math.floor(Math.random() * 800);
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "tools/upstash-local/main.ts",
      "--port",
      String(port),
      "--token",
      token,
      "--latency-ms",
      String(latencyMs),
    ],
    { env: { ...process.env, REDIS_URL: redisUrl }, stdio: ["ignore", "pipe", "inherit"] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const m = /UPSTASH_REDIS_REST_URL=(\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the REST server exited (${code}): ${out}`)));
  });
  return {
    url,
    token,
    requests: () => sentRequests,
    close: async () => {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** When (ms from the drain's start) the latest sleep ended. */
function worstAt(tr: Trace, t0: number): number {
  let worst = 0;
  for (let i = 1; i < tr.starts.length; i++) {
    const late = (k: number) => tr.ends[k]! - tr.starts[k]! - tr.nominal[k]!;
    if (late(i) > late(worst)) worst = i;
  }
  return Math.round(tr.ends[worst]! - t0);
}

/** How late the handlers' sleeps ended: median, 99th percentile and worst, in ms. */
function lateness(tr: Trace): string {
  const late = tr.starts.map((s, i) => tr.ends[i]! - s - tr.nominal[i]!).sort((a, b) => a - b);
  const at = (q: number) => late[Math.min(late.length - 1, Math.floor(q * late.length))]!.toFixed(1);
  return `${at(0.5)}/${at(0.99)}/${at(1)}`;
}

/**
 * The jobs whose sleep was due while one of the tick's requests went or came back (within 1 ms
 * before, or before the sleep ended): their share of the jobs and of the overrun. Far above the
 * jobs' share, the tick's own request work would be what delays the timers.
 */
function overrunAtRequests(tr: Trace): string {
  const marks = tr.requests.flatMap((r) => [r.sent, r.back]);
  let near = 0;
  let all = 0;
  let nearJobs = 0;
  for (let i = 0; i < tr.starts.length; i++) {
    const due = tr.starts[i]! + tr.nominal[i]!;
    const late = tr.ends[i]! - due;
    all += late;
    if (marks.some((m) => m >= due - 1 && m <= due + late)) (near += late), nearJobs++;
  }
  return `${((nearJobs / tr.starts.length) * 100).toFixed(0)} % / ${((near / all) * 100).toFixed(0)} %`;
}

/** Slot-ms idle in [from, to): concurrency minus the jobs running, integrated. */
function idleIn(events: [number, number][], from: number, to: number): number {
  let running = 0;
  let at = from;
  let idle = 0;
  for (const [t, d] of events) {
    const clipped = Math.min(Math.max(t, from), to);
    idle += (CONCURRENCY - running) * (clipped - at);
    at = clipped;
    running += d;
  }
  return idle + (CONCURRENCY - running) * (to - at);
}

async function main(): Promise<void> {
  const latencyMs = Number(values["latency-ms"]);
  const batch = Number(values.batch);
  const jobs = durations(Number(values.jobs), Number(values.seed));
  const n = jobs.length;
  const limit = limitOf(jobs, CONCURRENCY);
  const found = values["private-redis"] ? await startPrivate() : await findRedis();
  const direct = new Redis(found.url);
  const server = values["server-process"]
    ? await childServer(found.url, latencyMs)
    : await startUpstashLocal({ redisUrl: found.url, token: "bench-token-0123456789", latencyMs });
  const client = benchUpstashClient(server);
  const prefix = `bench:upstash-occupancy:${Date.now()}:`;
  let trace: Trace = { starts: [], ends: [], nominal: [], requests: [] };
  const tq = createTickq({
    redis: traced(upstashAdapter(client), () => trace),
    prefix,
    jobs: {
      sleep: async ([ms]: [number]) => {
        // Its end at its start's index: jobs end in another order than they start.
        const at = trace.starts.push(now()) - 1;
        trace.nominal.push(ms);
        if (ms > 0) await new Promise((r) => setTimeout(r, ms));
        trace.ends[at] = now();
      },
    },
  });
  const drain = async (list: readonly number[]) => {
    await tq.enqueueBulk(list.map((ms) => ({ name: "sleep", args: [ms] })));
    trace = { starts: [], ends: [], nominal: [], requests: [] };
    const before = server.requests();
    const elu = perfHooks.eventLoopUtilization();
    const cpu = process.cpuUsage();
    const t0 = now();
    let done = 0;
    while (done < list.length) {
      const report = await tq.tick({ batch, concurrency: CONCURRENCY, budgetMs: 120_000 });
      if (report.fetched === 0) throw new Error(`drained only ${done} of ${list.length}`);
      done += report.succeeded;
    }
    const t1 = now();
    const used = process.cpuUsage(cpu);
    return {
      t0,
      t1,
      requests: server.requests() - before,
      trace,
      elu: perfHooks.eventLoopUtilization(elu).utilization,
      cpuMs: (used.user + used.system) / 1000,
    };
  };
  console.log(
    `tickq over @upstash/redis, ${latencyMs} ms a request; ${n} jobs of 0–100 ms (seed ${values.seed}), ` +
      `concurrency ${CONCURRENCY}, batch ${batch}; limit ${Math.round(limit)} jobs/s; load average at start ${load()}`,
  );
  const rows: Record<string, string | number>[] = [];
  const pools: { rate: number; overrun: number }[] = [];
  try {
    await drain(jobs.slice(0, Math.max(100, Math.floor(n / 10))));
    for (let run = 0; run < Number(values.runs); run++) {
      // The in-memory pool first on even runs, after on odd ones: the load moves both alike.
      if (run % 2 === 0) pools.push(await poolDrain(jobs));
      const { t0, t1, requests, trace: tr, elu, cpuMs } = await drain(jobs);
      const events: [number, number][] = [
        ...tr.starts.map((t): [number, number] => [t, 1]),
        ...tr.ends.map((t): [number, number] => [t, -1]),
      ].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      const firstStart = Math.min(...tr.starts);
      const lastStart = Math.max(...tr.starts);
      const lastEnd = Math.max(...tr.ends);
      const lastFetch = Math.max(...tr.requests.filter((r) => r.fetched > 0).map((r) => r.back));
      const bodyEnd = Math.min(lastFetch, lastStart);
      const total = CONCURRENCY * (t1 - t0);
      const nominal = tr.nominal.reduce((a, b) => a + b, 0);
      const busy = tr.starts.reduce((sum, s, i) => sum + (tr.ends[i]! - s), 0);
      // The body's idle time while the tick held no job: every fetched job had started.
      const fetchedBy = (t: number) => tr.requests.filter((r) => r.back <= t).reduce((s, r) => s + r.fetched, 0);
      let starved = 0;
      // Stretches where slots idled with no job held: [from, to, slot-ms].
      const gaps: [number, number, number][] = [];
      {
        let running = 0;
        let at = firstStart;
        let started = 0;
        for (const [t, d] of events) {
          const c = Math.min(Math.max(t, firstStart), bodyEnd);
          if (fetchedBy(at) <= started && c > at && running < CONCURRENCY) {
            const idle = (CONCURRENCY - running) * (c - at);
            starved += idle;
            const last = gaps.at(-1);
            if (last && last[1] >= at - 0.001) {
              last[1] = c;
              last[2] += idle;
            } else gaps.push([at, c, idle]);
          }
          at = c;
          running += d;
          if (d > 0) started++;
        }
      }
      if (values.gaps) {
        for (const [from, to, idle] of gaps.sort((a, b) => b[2] - a[2]).slice(0, 4)) {
          const flying = tr.requests
            .filter((r) => r.sent <= to && r.back >= from)
            .map((r) => `${(r.sent - t0).toFixed(0)}→${(r.back - t0).toFixed(0)}`);
          console.log(
            `run ${run}: no job held ${(from - t0).toFixed(0)}–${(to - t0).toFixed(0)} ms, ${idle.toFixed(0)} slot-ms idle; requests in flight ${flying.join(" ")}`,
          );
        }
      }
      const bodyIdle = idleIn(events, firstStart, bodyEnd);
      const pct = (x: number) => `${((x / total) * 100).toFixed(2)} %`;
      rows.push({
        run,
        "jobs/s": Math.round((n / (t1 - t0)) * 1000),
        "% of limit": `${(((n / (t1 - t0)) * 1000 * 100) / limit).toFixed(1)} %`,
        requests: requests,
        "event loop busy": `${(elu * 100).toFixed(1)} %`,
        "CPU ms": Math.round(cpuMs),
        "work asked": pct(nominal),
        "timer overrun": pct(busy - nominal),
        "overrun p50/p99/max ms": lateness(tr),
        "at a request: jobs / overrun": overrunAtRequests(tr),
        "worst ends at ms": worstAt(tr, t0),
        "idle: first request": pct(idleIn(events, t0, firstStart)),
        "idle: body, none held": pct(starved),
        "idle: body, jobs held": pct(bodyIdle - starved),
        "idle: tail": pct(idleIn(events, bodyEnd, lastEnd)),
        "idle: last acks": pct(idleIn(events, lastEnd, t1)),
      });
      if (run % 2 === 1) pools.push(await poolDrain(jobs));
      rows.at(-1)!["pool % of limit"] = `${((pools.at(-1)!.rate * 100) / limit).toFixed(1)} %`;
      rows.at(-1)!["pool timer overrun"] = `${(pools.at(-1)!.overrun * 100).toFixed(2)} %`;
      const step = Number(values.timeline);
      if (step > 0) {
        const cells = [];
        for (let from = t0; from < t1; from += step) {
          const to = Math.min(t1, from + step);
          cells.push((CONCURRENCY - idleIn(events, from, to) / (to - from)).toFixed(0));
        }
        console.log(`run ${run}: mean jobs running per ${step} ms: ${cells.join(" ")}`);
        console.log(
          `  requests (ms from start: sent→back fetched): ${tr.requests
            .map((r) => `${(r.sent - t0).toFixed(0)}→${(r.back - t0).toFixed(0)}:${r.fetched}`)
            .join(" ")}`,
        );
      }
    }
  } finally {
    const keys = await direct.keys(`${prefix}*`);
    if (keys.length) await direct.del(...keys);
    await server.close();
    direct.disconnect();
    await found.stop();
  }
  console.table(rows);
  console.log(`slot-time shares of concurrency × wall time; load average at end ${load()}`);
}

await main();
