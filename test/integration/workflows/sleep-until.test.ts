// step.sleepUntil parks a run until a due time given as a Date, epoch ms or an
// ISO string: it wakes at that time and not before, a time already past
// resumes at the next tick, and a bad due time fails the run with an error
// that names the step.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(adapterCases)("step.sleepUntil over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-until");

  const napper = () =>
    h.make(
      {},
      {
        workflows: {
          nap: {
            run: async (input: { until: string | number; as: "iso" | "ms" | "date" }, step) => {
              const until = input.as === "date" ? new Date(input.until) : input.until;
              await step.sleepUntil("nap", until);
              return step.run("after", () => "up");
            },
          },
        },
      },
    );

  it.each(["iso", "ms", "date"] as const)(
    "a run sleeping until a due time (%s) wakes at it and not before",
    async (as) => {
      const tq = napper();
      const dueMs = Date.now() + 1_000;
      const until = as === "ms" || as === "date" ? dueMs : new Date(dueMs).toISOString();
      const id = await tq.workflows.start("nap", { until, as });
      await tq.tick({ budgetMs: 1_000 });
      const parked = await tq.workflows.get(id);
      expect(parked?.status).toBe("sleeping");
      const wakeAt = parked!.steps[0]!.wakeAt!;
      // Counted from the process's view of Redis' clock, which lags Redis by a reply's flight: never early.
      expect(wakeAt).toBeGreaterThanOrEqual(dueMs);
      expect(wakeAt - dueMs).toBeLessThan(500);
      await tq.tick({ budgetMs: 300 });
      expect((await tq.workflows.get(id))?.status).toBe("sleeping");
      await pause(Math.max(0, wakeAt - Date.now()) + 50);
      await tq.tick({ budgetMs: 1_000 });
      expect(await tq.workflows.result(id, { timeoutMs: 100 })).toBe("up");
    },
  );

  it("a due time already past resumes the run in the same tick", async () => {
    const tq = napper();
    const id = await tq.workflows.start("nap", { until: "2020-01-01T00:00:00Z", as: "iso" });
    await tq.tick({ budgetMs: 2_000 });
    expect(await tq.workflows.result(id, { timeoutMs: 100 })).toBe("up");
    expect((await tq.workflows.get(id))?.steps.map((s) => [s.name, s.status])).toEqual([
      ["nap", "completed"],
      ["after", "completed"],
    ]);
  });

  it.each([
    ["an ISO time without its offset", "2026-12-01T09:00:00"],
    ["words", "tomorrow"],
    ["a negative epoch", -5],
  ])("a bad due time (%s) fails the run with an error naming the step", async (_, until) => {
    const tq = napper();
    const id = await tq.workflows.start("nap", { until, as: typeof until === "number" ? "ms" : "iso" });
    await tq.tick({ budgetMs: 1_000 });
    const run = await tq.workflows.get(id);
    expect(run?.status).toBe("failed");
    expect(run?.error?.message).toContain('step.sleepUntil("nap")');
    expect(run?.error?.message).toContain("ISO 8601 string with its offset");
  });
});
