// Child workflows in the workflow phase (bench/chaos/workflow-phase.ts).
// chaosParent runs a step, invokes a chaosKid child (a step, a sleep of
// 300–1,500 ms, a step: live long enough to be caught) under a known id
// (`kid-N`, `kid-N:TRY` on a retry), and runs a last step. The driver starts
// the parents while faults go on and cancels every other one 0–1,500 ms after
// its start, mostly while its child runs. Once every parent ended: a child
// of a parent whose cancel answered "cancelled" (or "cancelling") must not be
// left running, nor complete after that answer ("child left running"), and
// every parent not cancelled must complete with its child's output.
import type { Tickq, WorkflowStep } from "../../src/index.js";
import type { JobRegistry } from "../../src/job/definition.js";
import { sleep } from "./rng.js";

/** The tries of a parent's child step (1 + its retries): the child ids to look at. */
const CHILD_TRIES = 3;

export function childWorkflows() {
  return {
    chaosKid: {
      run: async (input: { n: number }, step: WorkflowStep) => {
        await step.run("k1", () => input.n);
        await step.sleep("nap", 300 + (input.n % 5) * 300);
        return step.run("k2", () => input.n * 2);
      },
    },
    chaosParent: {
      retry: CHILD_TRIES - 1,
      backoff: () => 200,
      run: async (input: { n: number }, step: WorkflowStep) => {
        await step.run("p1", () => input.n);
        const kid = await step.invokeWorkflow<number>("kid", "chaosKid", { n: input.n }, { id: `kid-${input.n}` });
        return step.run("p2", () => ({ kid }));
      },
    },
  };
}

export interface ChildResult {
  parents: number;
  /** Parents not cancelled, and those of them that completed with their child's output. */
  uncancelled: number;
  uncancelledCompleted: number;
  /** Cancels answered "cancelled" or "cancelling" (the rest found the parent ended). */
  cancelled: number;
  /** Children of a cancelled parent still live at the end, or completed after the cancel answered. */
  leftRunning: string[];
}

type ChildTickq = Pick<Tickq<JobRegistry>, "workflows">;

const until = async <T>(call: () => Promise<T>): Promise<T> => {
  for (;;) {
    try {
      return await call();
    } catch {
      await sleep(100);
    }
  }
};

/** Starts `count` parents over `windowMs`, cancelling the odd ones mid-run; `result()` once they ended. */
export function childLanes(tq: ChildTickq, count: number, windowMs: number) {
  const answered = new Map<number, number>();
  let allStarted = false;
  const gap = Math.max(20, windowMs / count);
  const started = (async () => {
    const cancels: Promise<void>[] = [];
    for (let n = 0; n < count; n++) {
      await until(() => tq.workflows.start("chaosParent" as never, { n } as never, { id: `parent-${n}` }));
      if (n % 2 === 1)
        cancels.push(
          (async () => {
            await sleep(Math.floor(Math.random() * 1_500));
            const status = await until(() => tq.workflows.cancel(`parent-${n}`));
            if (status === "cancelled" || status === "cancelling") answered.set(n, Date.now());
          })(),
        );
      await sleep(gap);
    }
    await Promise.all(cancels);
    allStarted = true;
  })();
  const kidsOf = (n: number) =>
    Array.from({ length: CHILD_TRIES }, (_, t) => (t === 0 ? `kid-${n}` : `kid-${n}:${t + 1}`));
  return {
    /** True once every parent was started, its cancel answered, and ended. */
    async ended(): Promise<boolean> {
      if (!allStarted) return false;
      const page = await tq.workflows.list({ name: "chaosParent", limit: 500 });
      return (
        page.runs.length === count && page.runs.every((r) => !["running", "sleeping", "waiting"].includes(r.status))
      );
    },
    async result(): Promise<ChildResult> {
      await started;
      const r: ChildResult = {
        parents: count,
        uncancelled: 0,
        uncancelledCompleted: 0,
        cancelled: answered.size,
        leftRunning: [],
      };
      for (let n = 0; n < count; n++) {
        const cancelledAt = answered.get(n);
        if (cancelledAt === undefined) {
          if (n % 2 === 1) continue; // its cancel found it ended
          r.uncancelled++;
          const run = await until(() => tq.workflows.get(`parent-${n}`));
          if (run?.status === "completed" && (run.output as { kid?: number } | undefined)?.kid === n * 2)
            r.uncancelledCompleted++;
          continue;
        }
        for (const id of kidsOf(n)) {
          const kid = await until(() => tq.workflows.get(id));
          if (kid === undefined) continue;
          if (!kid.endedAt) r.leftRunning.push(`${id}: ${kid.status}`);
          else if (kid.status === "completed" && kid.endedAt > cancelledAt)
            r.leftRunning.push(`${id}: completed ${kid.endedAt - cancelledAt} ms after its parent's cancel answered`);
        }
      }
      return r;
    },
  };
}
