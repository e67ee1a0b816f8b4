// Retries and version bumps in the workflow phase (bench/chaos/workflow-phase.ts).
// chaosRetried runs fail once at their third step (its first try ever, by a
// ledger count; no retries) and the driver retries the failed ones
// (workflows.retryAll) while faults go on: each must end completed, its
// committed steps never read back with two values. chaosVersioned runs
// start alternately on version 1 and version 2 (a step renamed), while the
// workers flip between a deployment that declares version 1 only and one
// that declares version 2 and keeps version 1 (`versions`), tick by tick,
// until the faults are over (the ledger's `bumping`): every run must end
// completed, on its own version's code.
import type { Redis } from "ioredis";
import type { StepContext, Tickq, WorkflowStep } from "../../src/index.js";
import type { JobRegistry } from "../../src/job/definition.js";
import { sleep } from "./rng.js";

type Ledgered = {
  body: (ctx: StepContext, runId: string, fail: boolean) => Promise<string>;
  seen: (runId: string, name: string, value: unknown) => Promise<void>;
};

/** Which code a worker's ticks run: version 1 only ("old"), or version 2 with version 1 kept ("new"). */
export type Deployed = "old" | "new";

export function repairWorkflows(ledger: Redis, at: string, deployed: Deployed, { body, seen }: Ledgered) {
  const steps = async (input: { runId: string }, step: WorkflowStep, names: readonly string[]) => {
    for (const name of names)
      await seen(input.runId, name, await step.run(name, (ctx) => body(ctx, input.runId, false)));
  };
  const v1 = async (input: { runId: string }, step: WorkflowStep) => {
    await steps(input, step, ["a", "b", "c"]);
    return { version: 1 };
  };
  const v2 = async (input: { runId: string }, step: WorkflowStep) => {
    await steps(input, step, ["a", "b2", "c"]);
    return { version: 2 };
  };
  return {
    chaosRetried: {
      retry: 0,
      run: async (input: { runId: string }, step: WorkflowStep) => {
        await steps(input, step, ["a", "b"]);
        await step.run("breaks", async () => {
          if ((await ledger.hincrby(`${at}breaks`, input.runId, 1)) === 1)
            throw new Error("breaks: the first try fails");
        });
        await steps(input, step, ["c"]);
      },
    },
    chaosVersioned: deployed === "old" ? { run: v1 } : { version: 2, run: v2, versions: { 1: v1 } },
  };
}

export interface RepairResult {
  retriedRuns: number;
  retriedCompleted: number;
  /** retryAll's answers, summed. */
  retries: number;
  versionedRuns: number;
  versionedCompleted: number;
  /** Runs whose output names another version than the one they started on. */
  wrongVersion: string[];
}

type RepairTickq = Pick<Tickq<JobRegistry>, "workflows" | "stats">;

/**
 * Starts the runs (version 1 through `old`, version 2 through `next`), then retries failed chaosRetried runs
 * until `stop()` resolves true; `result()` reads how they ended.
 */
export async function repairLanes(old: RepairTickq, next: RepairTickq, ledger: Redis, at: string, runs: number) {
  const until = async <T>(call: () => Promise<T>): Promise<T> => {
    for (;;) {
      try {
        return await call();
      } catch {
        await sleep(100);
      }
    }
  };
  await ledger.set(`${at}bumping`, "1");
  const retried = Array.from({ length: runs }, (_, n) => `r-${n}`);
  const versioned = Array.from({ length: runs }, (_, n) => `v-${n}`);
  for (const id of retried)
    await until(() => next.workflows.start("chaosRetried" as never, { runId: id } as never, { id }));
  for (const [n, id] of versioned.entries()) {
    const tq = n % 2 === 0 ? old : next;
    await until(() => tq.workflows.start("chaosVersioned" as never, { runId: id } as never, { id }));
  }
  let stopped = false;
  let retries = 0;
  const lane = (async () => {
    while (!stopped) {
      try {
        retries += (await next.workflows.retryAll({ name: "chaosRetried", status: "failed" })).retried;
      } catch {
        // a fault: again
      }
      await sleep(300);
    }
  })();
  return {
    /** Stops retrying (the phase's cleanup). */
    stop: () => {
      stopped = true;
      return lane;
    },
    /** The faults are over: the workers run the new deployment only. */
    faultsOver: () => until(() => ledger.del(`${at}bumping`)),
    async result(): Promise<RepairResult> {
      stopped = true;
      await lane;
      const r: RepairResult = {
        retriedRuns: runs,
        retriedCompleted: 0,
        retries,
        versionedRuns: runs,
        versionedCompleted: 0,
        wrongVersion: [],
      };
      for (const id of retried)
        if ((await until(() => next.workflows.get(id)))?.status === "completed") r.retriedCompleted++;
      for (const id of versioned) {
        const run = await until(() => next.workflows.get(id));
        if (run?.status !== "completed") continue;
        r.versionedCompleted++;
        const ran = (run.output as { version?: number } | undefined)?.version;
        if (ran !== run.version) r.wrongVersion.push(`${id}: version ${run.version}, ran version ${ran}'s code`);
      }
      return r;
    },
    /** True once every run of both workflows completed. */
    async ended(): Promise<boolean> {
      const counts = (await next.stats()).workflows;
      return counts.chaosRetried?.completed === runs && counts.chaosVersioned?.completed === runs;
    },
  };
}
