// A failed run is not final: retry resumes it at the step that ended it with
// fresh tries, its completed steps kept (their functions do not run again); a
// second retry of the same ended attempt resumes nothing; a live or completed
// run is refused. fork starts a new run whose steps before `fromStep` are the
// source's, copied; retryAll retries a workflow's failed runs.
import { describe, expect, it } from "vitest";
import type { WorkflowStep } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const STEPS = ["s1", "s2", "s3", "s4", "s5"];

/** A five-step workflow counting each step's calls; step 3 throws while `broken.now`. */
function fiveSteps() {
  const calls: Record<string, number> = {};
  const broken = { now: true };
  const run = async (input: { k: number }, step: WorkflowStep) => {
    const out: number[] = [];
    for (const name of STEPS) {
      out.push(
        await step.run(
          name,
          () => {
            calls[name] = (calls[name] ?? 0) + 1;
            if (name === "s3" && broken.now) throw new Error("s3 is broken");
            return input.k + out.length;
          },
          { retry: 0 },
        ),
      );
    }
    return out;
  };
  return { calls, broken, definition: { run } };
}

describe.each(adapterCases)("workflow retry and fork over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-retry");

  it("retry of a run failed at step 3 of 5 runs steps 3–5 only, with fresh tries", async () => {
    const { calls, broken, definition } = fiveSteps();
    const tq = h.make({}, { workflows: { five: definition } });
    const id = await tq.workflows.start("five", { k: 10 });
    await expect(tq.workflows.result(id, { drive: true, timeoutMs: 10_000 })).rejects.toThrow(/s3 is broken/);
    expect(calls).toEqual({ s1: 1, s2: 1, s3: 1 });
    broken.now = false;
    expect(await tq.workflows.retry(id)).toEqual({ runId: id, status: "running" });
    expect(await tq.workflows.result(id, { drive: true, timeoutMs: 10_000 })).toEqual([10, 11, 12, 13, 14]);
    expect(calls).toEqual({ s1: 1, s2: 1, s3: 2, s4: 1, s5: 1 });
    const run = await tq.workflows.get(id);
    expect(run?.steps.find((s) => s.name === "s3")?.attempts).toBe(1);
    expect(run).toMatchObject({ status: "completed", endedAt: expect.any(Number) });
    expect(run?.error).toBeUndefined();
  });

  it("a second retry of the same ended attempt resumes nothing; live, completed and unknown runs are refused", async () => {
    const { definition } = fiveSteps();
    const tq = h.make({}, { workflows: { five: definition } });
    const id = await tq.workflows.start("five", { k: 0 });
    await expect(tq.workflows.retry(id)).rejects.toMatchObject({ code: "CONFLICT", message: /is running, not failed/ });
    await expect(tq.workflows.result(id, { drive: true, timeoutMs: 10_000 })).rejects.toThrow(/s3 is broken/);
    expect(await tq.workflows.retry(id)).toEqual({ runId: id, status: "running" });
    expect(await tq.workflows.retry(id)).toEqual({ runId: id, status: "running" });
    expect(await h.redis.hget(`${h.prefix}wf:run:${id}`, "retries")).toBe("1");
    // Failed again: that is a new ended attempt, and a retry resumes it.
    await expect(tq.workflows.result(id, { drive: true, timeoutMs: 10_000 })).rejects.toThrow(/s3 is broken/);
    expect(await tq.workflows.retry(id)).toEqual({ runId: id, status: "running" });
    expect(await h.redis.hget(`${h.prefix}wf:run:${id}`, "retries")).toBe("2");

    const done = h.make({}, { workflows: { one: { run: async () => "ok" } } });
    const ok = await done.workflows.start("one", null);
    await done.workflows.result(ok, { drive: true, timeoutMs: 10_000 });
    await expect(done.workflows.retry(ok)).rejects.toMatchObject({ code: "CONFLICT", message: /completed.*fork/ });
    await expect(done.workflows.retry("nope")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("a cancelled run, retried, resumes where it stopped", async () => {
    let firsts = 0;
    const tq = h.make(
      {},
      {
        workflows: {
          nap: {
            run: async (_: null, step: WorkflowStep) => {
              await step.run("first", () => ++firsts);
              await step.sleep("nap", "50ms");
              return step.run("after", () => "woke");
            },
          },
        },
      },
    );
    const id = await tq.workflows.start("nap", null);
    await tq.tick({ budgetMs: 1_000 });
    expect(await tq.workflows.cancel(id)).toBe("cancelled");
    expect(await tq.workflows.retry(id)).toEqual({ runId: id, status: "running" });
    expect(await tq.workflows.result(id, { drive: true, timeoutMs: 10_000 })).toBe("woke");
    expect(firsts).toBe(1);
  });

  it("fork starts a new run from a step, the steps before it copied and not run again, idempotent by id", async () => {
    const { calls, broken, definition } = fiveSteps();
    broken.now = false;
    const tq = h.make({}, { workflows: { five: definition } });
    const source = await tq.workflows.start("five", { k: 10 });
    expect(await tq.workflows.result(source, { drive: true, timeoutMs: 10_000 })).toEqual([10, 11, 12, 13, 14]);
    const forked = await tq.workflows.fork(source, { fromStep: "s4", id: "forked", input: { k: 100 } });
    expect(forked).toBe("forked");
    expect(await tq.workflows.fork(source, { fromStep: "s4", id: "forked" })).toBe("forked");
    expect(await tq.workflows.result(forked, { drive: true, timeoutMs: 10_000 })).toEqual([10, 11, 12, 103, 104]);
    expect(calls).toEqual({ s1: 1, s2: 1, s3: 1, s4: 2, s5: 2 });
    expect(await tq.workflows.get(forked)).toMatchObject({ name: "five", version: 1, input: { k: 100 } });
    const plain = await tq.workflows.fork(source, { fromStep: "s1" });
    expect(await tq.workflows.result(plain, { drive: true, timeoutMs: 10_000 })).toEqual([10, 11, 12, 13, 14]);
    await expect(tq.workflows.fork(source, { fromStep: "s9" })).rejects.toMatchObject({
      code: "BAD_ARGS",
      message: /has no step "s9" \(its steps: .*"s1"/,
    });
    await expect(tq.workflows.fork("nope", { fromStep: "s1" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("retryAll retries the workflow's failed runs, and only them", async () => {
    const { broken, definition } = fiveSteps();
    const tq = h.make(
      {},
      { workflows: { five: definition, other: { run: async () => Promise.reject(new Error("no")) } } },
    );
    const ids = await Promise.all([1, 2, 3].map((k) => tq.workflows.start("five", { k })));
    const other = await tq.workflows.start("other", null);
    for (const id of [...ids, other]) await tq.workflows.result(id, { drive: true, timeoutMs: 10_000 }).catch(() => {});
    broken.now = false;
    expect(await tq.workflows.retryAll({ name: "five", status: "failed" })).toEqual({ retried: 3 });
    expect(await tq.workflows.retryAll({ name: "five", status: "failed" })).toEqual({ retried: 0 });
    for (const id of ids)
      expect((await tq.workflows.result<number[]>(id, { drive: true, timeoutMs: 10_000 })).length).toBe(5);
    expect((await tq.workflows.get(other))?.status).toBe("failed");
    await expect(tq.workflows.retryAll({ name: "five", status: "cancelled" as "failed" })).rejects.toMatchObject({
      code: "BAD_STATE",
    });
  });
});
