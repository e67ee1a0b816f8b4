// step.invoke: a job run as a step, its return value the step's result. The
// step enqueues the job marked awaited (src/results/), with a jid drawn from
// the step's idempotency key and try, so a replay of the step (its tick
// died, or yielded at its budget) finds the same job instead of enqueueing
// another; then it polls the job's outcome until it ends or the step's
// signal aborts (the execution then yields and a later one polls again).
// The job's args meet its schema on the way in, as on every door (BAD_ARGS
// fails the step); a job cancelled or expired fails it as a dead one does.
import { enqueueJobs } from "../client/enqueue.js";
import { readAwaited } from "../results/awaited.js";
import { AWAIT_FIELD } from "../results/record.js";
import type { Runtime } from "../tick/runtime.js";
import type { StepContext } from "./types.js";
import { pause } from "./pause.js";

/** Runs `jobName(args)` for a step and answers its return value; throws its error once it ended failed, dead, cancelled or expired. */
export type Invoker = (jobName: string, args: unknown[], ctx: StepContext) => Promise<unknown>;

async function jidOf(key: string, attempt: number): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(key));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `wf-${hex}-${attempt}`;
}

export function invoker(runtime: Runtime): Invoker {
  return async (jobName, args, ctx) => {
    const jid = await jidOf(ctx.idempotencyKey, ctx.attempt);
    // Enqueued once per try: the same jid again within idWindowMs adds nothing.
    await enqueueJobs(runtime, [{ name: jobName, args, jid } as never], { [AWAIT_FIELD]: 1 });
    for (let wait = 10; ; wait = Math.min(wait * 2, 500)) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      const { result } = await readAwaited(runtime, jid);
      if (result?.state === "succeeded") return result.value;
      if (result?.state === "failed" || result?.state === "dead" || result?.state === "cancelled") {
        throw Object.assign(new Error(`job ${jobName} (${jid}) ended ${result.state}: ${result.error.message}`), {
          name: result.error.class,
        });
      }
      // It will never run: waiting on would hold the run for ever.
      if (result?.state === "expired")
        throw Object.assign(new Error(`job ${jobName} (${jid}) expired before it started`), { name: "TickqExpired" });
      await pause(wait, ctx.signal);
    }
  };
}
