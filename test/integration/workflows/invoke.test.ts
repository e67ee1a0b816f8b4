// step.invoke runs a job as a step: the job's return value is the step's
// result, enqueued once however often the step is replayed; a job that
// ends dead fails the step (and, its retries spent, the run).
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("step.invoke over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-invoke");

  it("awaits the job's return value, the job run once; a dead job fails the run", async () => {
    const ran: number[] = [];
    const tq = h.make(
      {
        double: async ([n]: [number]) => {
          ran.push(n);
          return n * 2;
        },
        broken: {
          perform: async () => {
            throw new Error("mailer down");
          },
          retry: false,
        },
      },
      {
        workflows: {
          calc: {
            retry: 0,
            run: async (input: { n: number }, step) => {
              const doubled = await step.invoke<number>("double", "double", [input.n]);
              return step.run("plus", () => doubled + 1);
            },
          },
          mail: { retry: 0, run: async (_: null, step) => step.invoke("send", "broken", []) },
        },
      },
    );
    const calc = await tq.workflows.start("calc", { n: 21 });
    const mail = await tq.workflows.start("mail", null);
    for (let t = 0; t < 6 && (await tq.stats()).workflows.calc?.completed !== 1; t++) await tq.tick({ budgetMs: 600 });
    for (let t = 0; t < 3 && (await tq.workflows.get(mail))?.status === "running"; t++)
      await tq.tick({ budgetMs: 600 });
    expect(await tq.workflows.result(calc, { timeoutMs: 100 })).toBe(43);
    expect(ran).toEqual([21]);
    expect(await tq.workflows.get(mail)).toMatchObject({
      status: "failed",
      error: { step: "send", message: expect.stringMatching(/ended dead: mailer down/) },
    });
  });
});
