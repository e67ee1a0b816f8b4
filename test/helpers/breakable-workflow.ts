// A two-step workflow for the repair tests (retry, fork, retry-all): step a
// returns its input's k (counted in `calls.a`), step b adds 1 and throws while
// `broken.now`, with no retry, so a run fails until the test mends it.
import type { WorkflowStep } from "../../src/workflows/types.js";

export function breakableWorkflow() {
  const broken = { now: true };
  const calls = { a: 0 };
  const two = {
    run: async (input: { k: number }, step: WorkflowStep) => {
      const a = await step.run("a", () => {
        calls.a++;
        return input.k;
      });
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
  return { broken, calls, workflows: { two } };
}
