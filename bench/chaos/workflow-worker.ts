// A worker of the workflow phase (bench/chaos/workflow-phase.ts): ticks
// nonstop over the endpoint in CHAOS_*, in two loops, until told to stop or
// killed, running the phase's 10-step workflow. The ledger (LEDGER_URL, a
// Redis never faulted, under LEDGER_PREFIX) gets, for each step function
// that ran: a count by idempotency key and try (`ran`), and its run's interval with
// its execution's fence (`iv:RUN`, to find overlapping executions); and, for
// each step result an execution read back, the first value seen by key
// (`seen`), with any later read that differs in `differs` (a step whose
// result was committed more than once, with another value); for each step
// of a run the driver cancels, when it started (`cst:RUN`, Date.now()).
// While the ledger's `bumping` is set, its ticks alternate between a deployment
// of chaosVersioned version 1 only and one of version 2 (workflow-repairs.ts).
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { createTickq, type StepContext, type WorkflowStep } from "../../src/index.js";
import type { JobLogger } from "../../src/job/context.js";
import { endpointFromEnv, openEndpoint } from "./connect.js";
import { sleep } from "./rng.js";
import { childWorkflows } from "./workflow-children.js";
import { type Deployed, repairWorkflows } from "./workflow-repairs.js";

const env = process.env;
const quiet: JobLogger = { info: () => {}, warn: () => {}, error: () => {} };
const at = env.LEDGER_PREFIX ?? "tickq-chaos-wf:";

/** The event each run waits for, matched by the run's number. */
export const EVENT = "chaos.go";
/** Steps of a run the driver cancels (chaosCancel: quick steps, each start time kept in the ledger). */
export const CANCEL_STEPS = 40;
/** The event many parked runs (chaosWaiter) wait for, sent once: the longest script it costs is measured. */
export const MANY_EVENT = "chaos.many";
/** The steps of a run, in order; "nap" sleeps, "go" waits for EVENT, "flaky" fails its first try. */
export const STEPS = ["a", "b", "c", "nap", "d", "go", "e", "flaky", "f", "g"] as const;

export function workflowPhaseWorkflows(ledger: Redis, deployed: Deployed = "new") {
  const body = async (ctx: StepContext, runId: string, fail: boolean) => {
    const began = Date.now();
    await ledger.hincrby(`${at}ran`, `${ctx.idempotencyKey}#${ctx.attempt}`, 1);
    await sleep(3 + Math.floor(Math.random() * 10));
    if (fail && ctx.attempt === 1) throw new Error("flaky: the first try fails");
    await ledger.rpush(`${at}iv:${runId}`, JSON.stringify([ctx.fence, began, Date.now()]));
    return randomUUID(); // a value of this try only: a second commit would show another
  };
  const seen = async (runId: string, name: string, value: unknown) => {
    const key = `${runId}:step:${name}`;
    const text = JSON.stringify(value);
    if ((await ledger.hsetnx(`${at}seen`, key, text)) === 0 && (await ledger.hget(`${at}seen`, key)) !== text) {
      await ledger.sadd(`${at}differs`, key);
    }
  };
  return {
    ...repairWorkflows(ledger, at, deployed, { body, seen }),
    ...childWorkflows(),
    chaosCancel: {
      run: async (input: { runId: string }, step: WorkflowStep) => {
        for (let i = 0; i < CANCEL_STEPS; i++) {
          await step.run(`s${i}`, async () => {
            // Taken first, before any await: the step function has started.
            const began = Date.now();
            await ledger.rpush(`${at}cst:${input.runId}`, began);
            return i;
          });
        }
      },
    },
    chaosWaiter: {
      run: async (_: null, step: WorkflowStep) => step.waitForEvent("go", { event: MANY_EVENT }),
    },
    chaosFlow: {
      retry: 3,
      backoff: () => 200,
      run: async (input: { n: number; runId: string }, step: WorkflowStep) => {
        let timedOut = false;
        for (const name of STEPS) {
          if (name === "nap") await step.sleep(name, 300 + (input.n % 5) * 100);
          else if (name === "go") {
            const data = await step.waitForEvent(name, { event: EVENT, match: String(input.n), timeout: "90s" });
            timedOut = data === null;
          } else {
            await seen(input.runId, name, await step.run(name, (ctx) => body(ctx, input.runId, name === "flaky")));
          }
        }
        return { n: input.n, timedOut };
      },
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const ledger = new Redis(env.LEDGER_URL ?? "redis://127.0.0.1:6379");
  const { adapter } = openEndpoint(endpointFromEnv(env));
  // Two deployments on one Redis: while the driver's `bumping` is set, ticks alternate between them.
  const deployment = (deployed: Deployed) =>
    createTickq({
      redis: adapter,
      prefix: env.PREFIX ?? "chaos:",
      jobs: {},
      workflows: workflowPhaseWorkflows(ledger, deployed),
      redisTimeoutMs: 5_000,
      logger: quiet,
    });
  const [old, next] = [deployment("old"), deployment("new")];
  let flip = 0;
  const pick = async () => ((await ledger.exists(`${at}bumping`)) === 1 && flip++ % 2 === 0 ? old : next);
  const tickOptions = { budgetMs: Number(env.BUDGET_MS ?? 2_500), leaseMs: Number(env.LEASE_MS ?? 1_500) };
  let stopping = false;
  process.on("message", (message) => {
    if (message === "stop") stopping = true;
  });
  process.on("disconnect", () => process.exit(0));
  const loop = async () => {
    while (!stopping) {
      try {
        const report = await (await pick()).tick(tickOptions);
        if (!report.more) await sleep(25);
      } catch {
        await sleep(50);
      }
    }
  };
  await Promise.all([loop(), loop()]);
  ledger.disconnect();
  process.exit(0);
}
