// What one event costs Redis when many runs wait for it (alone: npx tsx
// bench/workflow-events.ts [--waits 20000 --repeats 3]), on a private
// redis-server whose SLOWLOG keeps every command over 1 ms: WAITS runs are parked
// on one waitForEvent (bench/park-waits.ts), then one sendEvent resolves
// them all. Figures: the longest tickq script in SLOWLOG while the event is
// sent (the time Redis serves nothing else), the script calls it took, and
// sendEvent's time as its caller sees it. Medians of REPEATS.
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { createTickq } from "../src/index.js";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { scripts } from "../src/lua/index.js";
import { scriptSha } from "../src/redis/script-sha.js";
import { parkWaits } from "./park-waits.js";

export interface EventFigures {
  found: number;
  longestScriptMs: number;
  longestScript: string;
  scriptCalls: number;
  sendMs: number;
}

type SlowEntry = [id: number, at: number, micros: number, args: string[]];

/** Script calls Redis ran so far (EVAL and EVALSHA, from INFO commandstats). */
async function scriptCallsSoFar(redis: Redis): Promise<number> {
  const info = await redis.info("commandstats");
  return [...info.matchAll(/^cmdstat_eval(?:sha)?:calls=(\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
}

/** Forks Redis made so far (an AOF rewrite or an RDB save each fork once). */
async function forksSoFar(redis: Redis): Promise<number> {
  return Number(/^total_forks:(\d+)/m.exec(await redis.info("stats"))?.[1] ?? 0);
}

/**
 * Holds off automatic AOF rewrites until the answered function is called, once any rewrite running has
 * ended. A rewrite forks: the commands that run next pay for the pages they write being copied, in
 * proportion to the writes around them, not to their own work. In the chaos workflow phase (AOF past
 * 64 MB mid-event) scripts of 2–6 ms read 79–189 ms in SLOWLOG, each time in the second of the fork.
 */
async function holdRewrites(redis: Redis): Promise<() => Promise<void>> {
  const [, percentage] = (await redis.config("GET", "auto-aof-rewrite-percentage")) as [string, string];
  await redis.config("SET", "auto-aof-rewrite-percentage", "0");
  while (/^aof_rewrite_in_progress:1/m.test(await redis.info("persistence"))) await sleep(50);
  return async () => {
    await redis.config("SET", "auto-aof-rewrite-percentage", percentage);
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resets SLOWLOG to keep every command over 1 ms (a lower threshold logs the commands scripts call too, and
 * the logging itself then slows them), with no AOF rewrite started meanwhile (holdRewrites); the function
 * it answers reads the longest EVAL or EVALSHA since, in ms (0 when none took 1 ms), how many script calls
 * ran, and how many forks Redis made all the same (an RDB save: the longest then counts their copying).
 */
export async function watchScripts(
  redis: Redis,
): Promise<() => Promise<{ longestMs: number; longest: string; calls: number; forks: number }>> {
  const release = await holdRewrites(redis);
  await redis.config("SET", "slowlog-log-slower-than", "1000");
  await redis.config("SET", "slowlog-max-len", "10000");
  await redis.slowlog("RESET");
  const before = await scriptCallsSoFar(redis);
  const forksBefore = await forksSoFar(redis);
  const names = new Map<string, string>();
  for (const script of Object.values(scripts)) names.set(await scriptSha(script), script.name);
  // A script sent by its text (EVAL: the first call, or after NOSCRIPT, as the REST server relays it) shows in
  // SLOWLOG cut to 128 characters and "... (N more bytes)": its length names it.
  const byLength = new Map<number, string[]>();
  for (const script of Object.values(scripts))
    byLength.set(script.text.length, [...(byLength.get(script.text.length) ?? []), script.name]);
  const nameOf = (arg: string) => {
    const named = names.get(arg);
    if (named) return named;
    const cut = /\.\.\. \((\d+) more bytes\)$/.exec(arg);
    const length = cut ? arg.length - cut[0].length + Number(cut[1]) : arg.length;
    const found = byLength.get(length);
    return found ? `${found.join(" or ")} (sent by its text)` : `a script of ${length} characters`;
  };
  return async () => {
    const entries = (await redis.slowlog("GET", 10_000)) as SlowEntry[];
    const calls = (await scriptCallsSoFar(redis)) - before;
    const forks = (await forksSoFar(redis)) - forksBefore;
    await release();
    let longestMs = 0;
    let longest = "none over 1 ms";
    for (const [, , micros, args] of entries) {
      if (!/^eval/i.test(String(args[0] ?? "")) || micros / 1000 <= longestMs) continue;
      longestMs = micros / 1000;
      longest = nameOf(String(args[1]));
    }
    return { longestMs, longest, calls, forks };
  };
}

/** Parks `waits` runs on one event under `prefix`, sends it once, and reads SLOWLOG. */
export async function measureEvent(url: string, prefix: string, waits: number): Promise<EventFigures> {
  const client = new Redis(url);
  const adapter = ioredisAdapter(client);
  const tq = createTickq({
    redis: adapter,
    prefix,
    jobs: {},
    workflows: { waiter: { run: async (_: null, step) => step.waitForEvent("go", { event: "bench.go" }) } },
  });
  await parkWaits(tq, {
    redis: client,
    adapter,
    prefix,
    workflow: "waiter",
    step: "go",
    event: "bench.go",
    match: "",
    runs: waits,
  });
  const read = await watchScripts(client);
  const started = performance.now();
  const found = await tq.workflows.sendEvent("bench.go", { data: { ok: true } });
  const sendMs = performance.now() - started;
  const { longestMs, longest, calls } = await read();
  const left = Number(await client.zcard(`${prefix}wf:events`));
  if (found !== waits || left !== 0)
    throw new Error(`bench/workflow-events: found ${found} of ${waits}, ${left} deliveries left`);
  client.disconnect();
  return { found, longestScriptMs: longestMs, longestScript: longest, scriptCalls: calls, sendMs };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function runWorkflowEventsBench(waits: number, repeats: number): Promise<void> {
  if (waits <= 0) return;
  const server = await startPrivate();
  try {
    const rounds: EventFigures[] = [];
    for (let r = 0; r < repeats; r++) rounds.push(await measureEvent(server.url, `bev${r}:`, waits));
    console.log(
      `\nOne event to ${waits} parked runs, ${repeats} rounds; private Redis, SLOWLOG keeping commands over 1 ms`,
    );
    console.table([
      {
        "waits found": waits,
        "longest tickq script, ms (median)": median(rounds.map((f) => f.longestScriptMs)).toFixed(2),
        "longest, min–max": `${Math.min(...rounds.map((f) => f.longestScriptMs)).toFixed(2)}–${Math.max(...rounds.map((f) => f.longestScriptMs)).toFixed(2)}`,
        "longest was": [...new Set(rounds.map((f) => f.longestScript))].join(", "),
        "script calls": median(rounds.map((f) => f.scriptCalls)),
        "sendEvent, ms (median)": Math.round(median(rounds.map((f) => f.sendMs))),
      },
    ]);
  } finally {
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { waits: { type: "string", default: "20000" }, repeats: { type: "string", default: "3" } },
  });
  await runWorkflowEventsBench(Number(values.waits), Number(values.repeats));
  process.exit(0);
}
