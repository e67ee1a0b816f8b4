// Makes the loaded module's work visible: a middleware prints each job run as it ends, the failed
// and dead events print what became of a failed run (retried when, or dead and why: a run's line
// cannot say, the ack decides after it), and each workflow's `step` is wrapped so a step function
// prints when it runs (a memoized step, which does not run, prints nothing). The module's own
// objects are not changed: the workflows are copies.
import type { JobContext, Middleware, RunningJob } from "../../job/context.js";
import type { JobRegistry } from "../../job/definition.js";
import type { Tickq } from "../../tickq.js";
import type { WorkflowStep } from "../../workflows/types.js";
import type { LoadedJobs } from "../load-jobs.js";
import { type Lines, took } from "./lines.js";

export function printJobs(out: Lines): Middleware {
  return async (job: RunningJob, ctx: JobContext, next) => {
    const started = performance.now();
    try {
      const value = await next();
      out.write("ok", "✓", `job ${job.name}`, `${ctx.jid} ${took(performance.now() - started)}`);
      return value;
    } catch (error) {
      out.write("fail", "✗", `job ${job.name}`, `${ctx.jid} attempt ${ctx.attempt}: ${messageOf(error)}`);
      throw error;
    }
  };
}

/**
 * A line when a failed job is retried (`↻ job NAME JID retried: attempt 2 in 1.0 s`), dropped (`dead: false`) or
 * goes dead (`☠ job NAME dead JID: Error: …`, the reason too for a job that could not run at all).
 */
export function printOutcomes(tickq: Pick<Tickq<JobRegistry>, "on">, out: Lines): void {
  tickq.on("failed", (event) => {
    if (event.retryAt) {
      const wait = took(Math.max(0, event.retryAt.getTime() - Date.now()));
      out.write("info", "↻", `job ${event.name}`, `${event.jid} retried: attempt ${event.attempt + 1} in ${wait}`);
    } else if (event.payload.dead === false) {
      out.write(
        "fail",
        "✗",
        `job ${event.name} dropped`,
        `${event.jid} out of retries after attempt ${event.attempt} (dead: false)`,
      );
    }
  });
  tickq.on("dead", (event) => {
    const after = event.error === undefined ? "" : ` after attempt ${event.attempt}`;
    out.write("fail", "☠", `job ${event.name} dead`, `${event.jid}${after}: ${event.reason}`);
  });
}

type Workflows = NonNullable<LoadedJobs["workflows"]>;
type Definition = { run: (input: unknown, step: WorkflowStep) => Promise<unknown> };

export function printSteps(workflows: Workflows | undefined, out: Lines): Workflows | undefined {
  if (!workflows) return undefined;
  const wrapped: Record<string, unknown> = {};
  for (const [name, definition] of Object.entries(workflows as Record<string, Definition>)) {
    if (typeof definition?.run !== "function") {
      wrapped[name] = definition; // createTickq names what is wrong with it
      continue;
    }
    wrapped[name] = {
      ...definition,
      run: (input: unknown, step: WorkflowStep) => definition.run(input, watched(name, step, out)),
    };
  }
  return wrapped as Workflows;
}

function watched(workflow: string, step: WorkflowStep, out: Lines): WorkflowStep {
  const run: WorkflowStep["run"] = (name, fn, options) =>
    step.run(
      name,
      async (ctx) => {
        const started = performance.now();
        try {
          const value = await fn(ctx);
          const run = runIdOf(ctx.idempotencyKey);
          out.write("ok", "✓", `step ${workflow}/${name}`, `${run} ${took(performance.now() - started)}`);
          return value;
        } catch (error) {
          const run = runIdOf(ctx.idempotencyKey);
          out.write("fail", "✗", `step ${workflow}/${name}`, `${run} attempt ${ctx.attempt}: ${messageOf(error)}`);
          throw error;
        }
      },
      options,
    );
  return new Proxy(step, {
    get: (target, key, receiver) => (key === "run" ? run : Reflect.get(target, key, receiver)),
  });
}

/**
 * The run id, as `tickq workflows show` takes it, from a step's idempotency key: `LENGTH:runId:step:name`
 * (or `runId:step:name` for a run an earlier version started), so a step's line names its run as a job's
 * line names its jid.
 */
export function runIdOf(idempotencyKey: string): string {
  const length = /^(\d+):/.exec(idempotencyKey);
  if (length) return idempotencyKey.slice(length[0].length, length[0].length + Number(length[1]));
  const end = idempotencyKey.lastIndexOf(":step:");
  return end < 0 ? idempotencyKey : idempotencyKey.slice(0, end);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
