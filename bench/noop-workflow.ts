// The workflow the step benches drain: `steps` no-op steps a run, each result committed
// before the next starts; `done` is called as each run completes.

interface Step {
  run(name: string, fn: () => number): Promise<number>;
}

/** A workflow definition of `steps` no-op steps (pass it under `workflows`). */
export const noopWorkflow = (steps: number, done: () => void) => ({
  run: async (_: null, step: Step): Promise<number> => {
    let sum = 0;
    for (let i = 0; i < steps; i++) sum += await step.run(`s${i}`, () => i);
    done();
    return sum;
  },
});
