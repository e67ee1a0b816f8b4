// The cost of resuming a run whose steps return big results (bench/workflows.ts
// prints it; alone: npx tsx bench/workflow-resume.ts [--steps 100 --ref main]).
// One run of STEPS steps, each returning 250,000 characters, with a 1 ms
// sleep after each, so every step is a resume: on a private redis-server,
// ticks back to back until the run completes. Figures: the time, the bytes
// the tick read per resume (every begin, workflow_tick and workflow_steps
// reply, summed over the run ÷ its executions, and by the last but one), the
// largest reply, the largest tick lease (the replies kept for replays),
// Redis' peak memory over the run's own stored data, and the longest script
// in SLOWLOG. With --ref, the same run on that git ref's code beside this
// checkout's (a temporary worktree, bench/ref-worktree.ts).
import { createHash } from "node:crypto";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import type { RedisAdapter, RedisReply } from "../src/redis/types.js";
import { worktreeOf } from "./ref-worktree.js";

type Source = typeof import("../src/index.js") & { scripts: Record<string, { text: string }> };

export interface ResumeFigures {
  seconds: number;
  executions: number;
  bytesPerResume: number;
  bytesLastResume: number;
  largestReply: number;
  largestLease: number;
  peakOverData: number;
  storedData: number;
  longestScriptMs: number;
}

const RESULT = 250_000;
const MIB = 1024 * 1024;

/** Characters of strings and digits of numbers in a reply: what crossed the wire, near enough. */
function replyBytes(reply: RedisReply): number {
  if (typeof reply === "string") return reply.length;
  if (Array.isArray(reply)) return reply.reduce((sum: number, r) => sum + replyBytes(r as RedisReply), 0);
  return String(reply).length;
}

async function info(redis: Redis, field: string): Promise<number> {
  return Number(new RegExp(`^${field}:(\\d+)`, "m").exec(await redis.info("memory"))![1]);
}

async function largestLease(redis: Redis, prefix: string): Promise<number> {
  let largest = 0;
  for (const key of await redis.keys(`${prefix}tick:*`)) {
    largest = Math.max(largest, Number((await redis.memory("USAGE", key)) ?? 0));
  }
  return largest;
}

/** One run on the code under `root` (this checkout: "..") against a fresh private Redis. */
export async function measureResume(root: string, steps: number): Promise<ResumeFigures> {
  const src = (await import(`${root}/src/index.js`)) as Source;
  const { ioredisAdapter } = (await import(`${root}/src/redis/ioredis.js`)) as typeof import("../src/redis/ioredis.js");
  const { scripts } = (await import(`${root}/src/lua/index.js`)) as { scripts: Record<string, { text: string }> };
  const read = new Set(["begin", "workflow_tick", "workflow_steps"].map((n) => scripts[n]?.text).filter(Boolean));
  const readSha = new Set([...read].map((text) => createHash("sha1").update(text!).digest("hex")));
  const server = await startPrivate();
  const client = new Redis(server.url);
  const probe = new Redis(server.url);
  let bytes = 0;
  let largestReply = 0;
  const count = (counted: boolean) => (reply: RedisReply) => {
    if (counted) {
      const n = replyBytes(reply);
      bytes += n;
      largestReply = Math.max(largestReply, n);
    }
    return reply;
  };
  const base = ioredisAdapter(client);
  const adapter: RedisAdapter = {
    ...base,
    evalsha: (sha, keys, args) => base.evalsha(sha, keys, args).then(count(readSha.has(sha))),
    eval: (script, keys, args) => base.eval(script, keys, args).then(count(read.has(script))),
  };
  let lease = 0;
  const perExecution: number[] = [];
  let executions = 0;
  const tq = src.createTickq({
    redis: adapter,
    prefix: "resume:",
    jobs: {},
    workflows: {
      big: {
        run: async (_: null, step) => {
          executions++;
          perExecution.push(bytes);
          for (let i = 0; i < steps; i++) {
            await step.run(`s${i}`, async () => {
              lease = Math.max(lease, await largestLease(probe, "resume:"));
              return `${i}:`.padEnd(RESULT, "r");
            });
            await step.sleep(`nap${i}`, 1);
          }
          return steps;
        },
      },
    },
  });
  try {
    await probe.config("SET", "slowlog-log-slower-than", "1000");
    await probe.config("SET", "slowlog-max-len", "10000");
    await probe.slowlog("RESET");
    const before = await info(probe, "used_memory");
    const id = await tq.workflows.start("big", null);
    const started = performance.now();
    while ((await probe.hget(`resume:wf:run:${id}`, "status")) !== "completed") await tq.tick({ budgetMs: 10_000 });
    const seconds = (performance.now() - started) / 1000;
    const peak = await info(probe, "used_memory_peak");
    const after = await info(probe, "used_memory");
    const log = (await probe.slowlog("GET", 10_000)) as [number, number, number, string[]][];
    const scriptsRun = log.filter((e) => /^eval/i.test(String(e[3][0])));
    // From the start of the second last execution to the last's: its reads, and the claim that resumed the last.
    const last = perExecution.length > 1 ? perExecution.at(-1)! - perExecution.at(-2)! : bytes;
    return {
      seconds,
      executions,
      bytesPerResume: bytes / Math.max(1, executions),
      bytesLastResume: last,
      largestReply,
      largestLease: lease,
      peakOverData: peak - after,
      storedData: after - before,
      longestScriptMs: Math.max(0, ...scriptsRun.map((e) => e[2] / 1000)),
    };
  } finally {
    client.disconnect();
    probe.disconnect();
    await server.stop();
  }
}

/** Prints the table: this checkout, and `ref` beside it when given. */
export async function runResumeBench(steps: number, ref?: string): Promise<void> {
  if (steps <= 0) return;
  const rows: Record<string, string | number>[] = [];
  const row = (what: string, f: ResumeFigures) => ({
    what,
    "time s": f.seconds.toFixed(1),
    executions: f.executions,
    "MiB read/resume (mean)": (f.bytesPerResume / MIB).toFixed(2),
    "MiB read, a late resume": (f.bytesLastResume / MIB).toFixed(2),
    "largest reply MiB": (f.largestReply / MIB).toFixed(2),
    "largest lease KiB": (f.largestLease / 1024).toFixed(1),
    "stored MiB": (f.storedData / MIB).toFixed(1),
    "peak over stored MiB": (f.peakOverData / MIB).toFixed(1),
    "longest script ms": f.longestScriptMs.toFixed(1),
  });
  rows.push(row("this checkout", await measureResume("..", steps)));
  if (ref) {
    const tree = worktreeOf(process.cwd(), ref);
    try {
      rows.push(row(ref, await measureResume(tree.dir, steps)));
    } finally {
      tree.remove();
    }
  }
  console.log(`\nWorkflow resume: one run of ${steps} steps of 250 KB results, a 1 ms sleep after each; private Redis`);
  console.table(rows);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { steps: { type: "string", default: "100" }, ref: { type: "string" } },
  });
  await runResumeBench(Number(values.steps), values.ref);
}
