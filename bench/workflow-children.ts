// What a child run costs (part of bench/workflows.ts; alone: npx tsx
// bench/workflow-children.ts [--runs 20]), on a private redis-server. One run
// at a time, ticked back to back until it completes (as `result(…, { drive:
// true })` does): a run of one step; a run whose one step invokes a child run
// of one step (step.invokeWorkflow); a run whose one step invokes a job
// (step.invoke), for comparison. Counted: Redis requests (every call through
// the adapter: the start, each tick's calls, and the step's own: noting and
// starting the child, reading the parent, polling the child), and the
// commands Redis ran for them (INFO commandstats, the commands scripts call
// included). Medians over RUNS runs of each, one after the other.
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { createTickq, type RedisAdapter } from "../src/index.js";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The adapter, counting each request it sends. */
function counted(adapter: RedisAdapter): RedisAdapter & { requests: number } {
  const out = Object.assign(Object.create(adapter) as RedisAdapter, { requests: 0 });
  out.evalsha = (...args) => (out.requests++, adapter.evalsha(...args));
  out.eval = (...args) => (out.requests++, adapter.eval(...args));
  if (adapter.wait) out.wait = (...args) => (out.requests++, adapter.wait!(...args));
  return out;
}

/** Commands Redis ran so far (scripts' own calls included), less the INFO calls that read it. */
async function commandsRun(redis: Redis): Promise<number> {
  const info = await redis.info("commandstats");
  let calls = 0;
  for (const m of info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) if (m[1] !== "info") calls += Number(m[2]);
  return calls;
}

function app(adapter: RedisAdapter) {
  return createTickq({
    redis: adapter,
    prefix: "bkids:",
    jobs: { one: async () => 1 },
    workflows: {
      lone: { run: async (_: null, step) => step.run("one", () => 1) },
      parent: { run: async (_: null, step) => step.invokeWorkflow("kid", "lone", null) },
      invoker: { run: async (_: null, step) => step.invoke("job", "one", []) },
    },
  });
}

async function costOfOneRun(
  tq: ReturnType<typeof app>,
  adapter: { requests: number },
  redis: Redis,
  name: "lone" | "parent" | "invoker",
) {
  const [requests0, commands0] = [adapter.requests, await commandsRun(redis)];
  const id = await tq.workflows.start(name, null);
  for (let i = 0; i < 100; i++) {
    await tq.tick({ budgetMs: 5_000 });
    if ((await tq.workflows.get(id))?.status === "completed") {
      // The reads of the run's status are the bench's, not the run's: one a tick.
      return { requests: adapter.requests - requests0 - (i + 1), commands: (await commandsRun(redis)) - commands0 };
    }
  }
  throw new Error(`bench/workflow-children: run ${id} of ${name} did not complete`);
}

export async function runChildrenBench(runs: number): Promise<void> {
  if (runs <= 0) return;
  const server = await startPrivate();
  const redis = new Redis(server.url);
  const client = new Redis(server.url);
  try {
    const adapter = counted(ioredisAdapter(client));
    const tq = app(adapter);
    const rows: Record<string, string | number>[] = [];
    const what = {
      lone: "a run of one step",
      parent: "a run invoking a child run of one step (both counted)",
      invoker: "a run invoking a job (step.invoke)",
    } as const;
    const figures: Record<string, { requests: number; commands: number }> = {};
    for (const name of ["lone", "parent", "invoker"] as const) {
      const costs = [];
      for (let r = 0; r < runs; r++) costs.push(await costOfOneRun(tq, adapter, redis, name));
      figures[name] = {
        requests: median(costs.map((c) => c.requests)),
        commands: median(costs.map((c) => c.commands)),
      };
      rows.push({ "one run, ticked until it completes": what[name], ...mapFigures(figures[name]) });
    }
    const child = {
      requests: figures.parent!.requests - figures.lone!.requests,
      commands: figures.parent!.commands - figures.lone!.commands,
    };
    rows.push({
      "one run, ticked until it completes": "a child run's cost (the second row less the first)",
      ...mapFigures(child),
    });
    console.log(`\nChild runs: medians of ${runs} runs each, one run at a time; private Redis`);
    console.table(rows);
  } finally {
    client.disconnect();
    redis.disconnect();
    await server.stop();
  }
}

const mapFigures = (f: { requests: number; commands: number }) => ({
  "Redis requests": f.requests,
  "Redis commands (scripts' included)": f.commands,
});

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { runs: { type: "string", default: "20" } } });
  await runChildrenBench(Number(values.runs));
}
