// A lone 10-step workflow run at Redis `appendfsync always` (every write fsynced, as the peers bench's
// tickq row): its latency from the start to the output in the caller's hands, and the requests it
// sends (counted by a wrapped adapter: each call is one request; scripts that write are fsynced).
// Two ways, alternating round after round on one private redis-server:
//   tick          startBulk, then tq.tick() until the run completed (stats), then get: what the peers
//                 bench did before startAndWait
//   startAndWait  tq.workflows.startAndWait: the tick's begin starts and claims the run, the output is
//                 answered from the tick that committed it
// With --ref REF, the same against that commit's tree (only `tick` when it lacks startAndWait).
//   npx tsx bench/workflow-lone.ts [--rounds 5] [--runs 20] [--ref main]
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import * as here from "../src/index.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import type { RedisAdapter } from "../src/redis/types.js";
import { median, spread } from "./alternating.js";
import { startRedis } from "./peers/servers.js";
import { tenStepsWorkflow } from "./peers/tickq-workflows.js";
import { worktreeOf } from "./ref-worktree.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    runs: { type: "string", default: "20" },
    steps: { type: "string", default: "10" },
    ref: { type: "string" },
  },
});
const rounds = Number(values.rounds);
const runs = Number(values.runs);
const steps = Number(values.steps);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(", ");

type Build = { createTickq: typeof here.createTickq; ioredisAdapter: typeof ioredisAdapter };
interface Variant {
  label: string;
  /** One lone run: its ms and the requests it sent. */
  lone(): Promise<{ ms: number; requests: number }>;
}

async function variantsOf(build: Build, tree: string, url: string, prefix: string): Promise<Variant[]> {
  const base = build.ioredisAdapter(new Redis(url)) as RedisAdapter;
  let requests = 0;
  const counted: RedisAdapter = {
    ...base,
    evalsha: (sha, keys, args) => (requests++, base.evalsha(sha, keys, args)),
    eval: (script, keys, args) => (requests++, base.eval(script, keys, args)),
  };
  const tq = build.createTickq({
    redis: counted,
    prefix,
    jobs: {},
    workflows: { tenSteps: tenStepsWorkflow },
  });
  const expected = (steps * (steps - 1)) / 2;
  const timed = async (run: () => Promise<unknown>) => {
    const before = requests;
    const t = performance.now();
    const output = await run();
    const ms = performance.now() - t;
    if (output !== expected) throw new Error(`${tree}: a run answered ${String(output)}, not ${expected}`);
    return { ms, requests: requests - before };
  };
  let completed = 0;
  const variants: Variant[] = [
    {
      label: `${tree}: startBulk + tick`,
      lone: () =>
        timed(async () => {
          const [id] = await tq.workflows.startBulk([{ name: "tenSteps", input: steps }]);
          completed++;
          for (;;) {
            const report = await tq.tick({ budgetMs: 10_000, batch: 100 });
            if (report.more) continue;
            if ((await tq.stats()).workflows.tenSteps!.completed >= completed) break;
          }
          return (await tq.workflows.get(id!))?.output;
        }),
    },
  ];
  const api = tq.workflows as { startAndWait?: (name: "tenSteps", input: number) => Promise<unknown> };
  if (typeof api.startAndWait === "function")
    variants.push({
      label: `${tree}: startAndWait`,
      lone: () =>
        timed(async () => {
          const output = await api.startAndWait!("tenSteps", steps);
          completed++;
          return output;
        }),
    });
  return variants;
}

console.log(`load average at start: ${load()} (1, 5, 15 min)`);
const server = await startRedis(true);
const ref = values.ref ? worktreeOf(resolve("."), values.ref) : undefined;
try {
  const variants = await variantsOf({ ...here, ioredisAdapter }, "this tree", server.url, "lone:here:");
  if (ref)
    variants.push(
      ...(await variantsOf(
        {
          ...((await import(`${ref.dir}/src/index.ts`)) as Build),
          ...((await import(`${ref.dir}/src/redis/ioredis.ts`)) as Pick<Build, "ioredisAdapter">),
        },
        values.ref!,
        server.url,
        "lone:ref:",
      )),
    );
  for (const v of variants) for (let i = 0; i < 10; i++) await v.lone();
  const samples = new Map(variants.map((v) => [v, { ms: [] as number[], requests: [] as number[] }]));
  for (let round = 0; round < rounds; round++) {
    for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
      const ms: number[] = [];
      for (let i = 0; i < runs; i++) {
        const one = await v.lone();
        ms.push(one.ms);
        samples.get(v)!.requests.push(one.requests);
      }
      samples.get(v)!.ms.push(median(ms));
    }
  }
  console.log(
    `\nA lone ${steps}-step run, Redis appendfsync always; ${rounds} alternating rounds of ${runs} runs each (a round's figure: its median)`,
  );
  console.table(
    variants.map((v) => {
      const s = samples.get(v)!;
      return {
        variant: v.label,
        "ms (median of rounds)": median(s.ms).toFixed(2),
        "rounds min–max": spread(s.ms, 2),
        "requests a run": spread(s.requests),
      };
    }),
  );
  console.log(`load average at end: ${load()}`);
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  ref?.remove();
  await server.stop();
  process.exit();
}
