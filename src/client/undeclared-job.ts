// A job the enqueuing process does not define: the CLI's `tickq enqueue NAME` without --jobs writes
// any name, and the tick that runs it holds the definition. Such a job is written without `retry`, so
// that tick takes its definition's (src/tick/passes/execute.ts), as Sidekiq's server takes the worker's
// option for a job pushed without one; writing `true` overrode a `retry: false` definition.
import type { JobHandler } from "../job/context.js";

const undeclared = new WeakSet<object>();

/** A handler standing for a job defined elsewhere: enqueue checks nothing of it and writes no `retry`. */
export function undeclaredJob(): JobHandler {
  const handler: JobHandler = () => {
    throw new Error("an undeclared job stands for one defined elsewhere: it never runs here");
  };
  undeclared.add(handler);
  return handler;
}

/** Whether a definition's handler is an `undeclaredJob()`. */
export const isUndeclared = (perform: unknown): boolean => typeof perform === "function" && undeclared.has(perform);
