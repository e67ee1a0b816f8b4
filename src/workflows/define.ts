// defineWorkflow: a workflow definition whose onFailure takes the input its
// run declares. Only a typing aid (it returns its argument): TypeScript
// (5.9) cannot infer an unannotated parameter from a sibling property inside
// the `workflows` record of createTickq (microsoft/TypeScript#53018), but it
// can inside one call, as for defineJob.
import type { WorkflowDefinition } from "./types.js";

/**
 * @example
 * const onboard = defineWorkflow({
 *   run: async (input: { userId: string }, step) => step.run("welcome", () => mail(input.userId)),
 *   onFailure: (input, failure, step) => log(input.userId, failure.message, step), // input: { userId: string }
 * });
 * createTickq({ redis, jobs: {}, workflows: { onboard } });
 */
export function defineWorkflow<I, O>(definition: WorkflowDefinition<I, O>): WorkflowDefinition<I, O> {
  return definition;
}
