// A two-step workflow for the repair tests (retry, fork, retry-all): step a
// returns its input's k, step b adds 1 and throws while `broken.now`, with no
// retry, so a run fails until the test mends it.
import type { WorkflowStep } from "../../src/workflows/types.js";

export function breakableWorkflow() {
  const broken = { now: true };
  const two = {
    run: async (input: { k: number }, step: WorkflowStep) => {
      const a = await step.run("a", () => input.k);
      return step.run(
        "b",
        () => {
          if (broken.now) throw new Error("b is broken");
          return a + 1;
        },
        { retry: 0 },
      );
    },
  };
  return { broken, workflows: { two } };
}
