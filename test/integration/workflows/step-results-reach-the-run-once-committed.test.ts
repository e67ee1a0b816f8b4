// A step's result reaches the run's code only once Redis applied its commit
// (src/workflows/execute.ts): each step's fn starts only once every earlier
// result is committed, and the value the run goes on with (reads right after
// `await step.run`) is the one committed. When that commit is refused (the
// run was claimed again meanwhile: its fence is another's), the run never
// gets the value, the next step's fn never runs and nothing is committed;
// the same for a run's only step, whose end would ride on the tick's finish.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("a step result reaches the run once committed, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-committed");
  const stepsOf = async (id: string) => {
    const raw = await h.redis.hgetall(`${h.prefix}wf:steps:${id}`);
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, (JSON.parse(v) as { result?: unknown }).result]));
  };
  // Another claim of the run: its fence is no longer the execution's.
  const steal = (id: string) => h.redis.hset(`${h.prefix}wf:run:${id}`, "fence", "stolen");

  it("each step's fn finds every earlier result committed, and the run goes on only with committed values", async () => {
    const seen: Record<string, unknown>[] = [];
    const wentOn: [number, unknown][] = [];
    let runId = "";
    const tq = h.make(
      {},
      {
        workflows: {
          chain: {
            run: async (_: null, step) => {
              let prev = 0;
              for (let i = 0; i < 5; i++) {
                prev = await step.run(`s${i}`, async () => {
                  seen.push({ step: i, prev, committed: await stepsOf(runId) });
                  return prev + i + 1;
                });
                // What the run goes on with is already what Redis holds.
                wentOn.push([prev, (await stepsOf(runId))[`s${i}`]]);
              }
              return prev;
            },
          },
        },
      },
    );
    runId = await tq.workflows.start("chain", null);
    await tq.tick({ budgetMs: 5_000 });
    expect(await tq.workflows.result(runId, { timeoutMs: 1_000 })).toBe(15);
    const values = [1, 3, 6, 10, 15];
    expect(seen).toEqual(
      values.map((_, i) => ({
        step: i,
        prev: i === 0 ? 0 : values[i - 1],
        committed: Object.fromEntries(values.slice(0, i).map((v, k) => [`s${k}`, v])),
      })),
    );
    expect(wentOn).toEqual(values.map((v) => [v, v]));
  });

  it("a step's commit refused: the run never gets its value, the next step's fn never runs, nothing is committed", async () => {
    const ran: string[] = [];
    let runId = "";
    const tq = h.make(
      {},
      {
        workflows: {
          stolen: {
            run: async (_: null, step) => {
              const first = await step.run("first", async () => {
                ran.push("first");
                await steal(runId);
                return 1;
              });
              ran.push(`went on with ${first}`);
              await step.run("second", () => void ran.push("second"));
              return "never";
            },
          },
        },
      },
    );
    runId = await tq.workflows.start("stolen", null);
    await tq.tick({ budgetMs: 2_000 });
    expect(ran).toEqual(["first"]);
    expect(await stepsOf(runId)).toEqual({});
    expect(await h.redis.hget(`${h.prefix}wf:run:${runId}`, "status")).toBe("running");
  });

  it("the only step's commit refused: no output, no result", async () => {
    let runId = "";
    const tq = h.make(
      {},
      {
        workflows: {
          endStolen: {
            run: async (_: null, step) =>
              step.run("only", async () => {
                await steal(runId);
                return 7;
              }),
          },
        },
      },
    );
    runId = await tq.workflows.start("endStolen", null);
    await tq.tick({ budgetMs: 2_000 });
    expect(await stepsOf(runId)).toEqual({});
    expect(await h.redis.hmget(`${h.prefix}wf:run:${runId}`, "status", "output")).toEqual(["running", null]);
  });
});
