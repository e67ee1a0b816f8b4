// startAndWait whose begin ran in Redis but whose reply was lost throws an error naming the run's id;
// the docs say calling again with { id } "starts the run at most once and answers its output". The
// lost begin left the run claimed by a tick that is gone: the run waits for that tick's lease, so with
// the defaults (leaseMs 30 s, timeoutMs 30 s) the call again throws WORKFLOW_TIMEOUT. Not fixed (the
// failed tick cannot release a claim it does not know it made, Redis gone): the error and the guide
// now say to give the call a timeoutMs past the lease; the first test holds what a shorter one gets.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { failingFirstCall } from "../../helpers/failing-script.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("startAndWait again after a lost begin reply over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-saw-again");

  it("throws WORKFLOW_TIMEOUT within a timeout shorter than the lost tick's lease, and the run waits with its step not run", async () => {
    let ran = 0;
    const tq = h.make(
      {},
      {
        redis: (await failingFirstCall(h.adapter, "begin", "after")).adapter,
        kick: { tick: { leaseMs: 6_000 } },
        workflows: { once: { run: async (_: null, step) => step.run("only", () => ++ran) } },
      },
    );
    const error = await tq.workflows.startAndWait("once", null).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    const id = /run "([^"]+)" started/.exec(error?.message ?? "")?.[1];
    expect(id, error?.message).toBeDefined();
    const again = await tq.workflows.startAndWait("once", null, { id, timeoutMs: 1_000 }).then(
      () => undefined,
      (e: unknown) => e as Error & { code?: string },
    );
    expect(again?.code).toBe("WORKFLOW_TIMEOUT");
    expect(ran).toBe(0);
    expect((await tq.workflows.get(id!))?.status).toBe("running");
  });

  it("answers the run's output within a timeout past the lost tick's lease, as its error says, the step run once", async () => {
    let ran = 0;
    const tq = h.make(
      {},
      {
        redis: (await failingFirstCall(h.adapter, "begin", "after")).adapter,
        kick: { tick: { leaseMs: 1_000 } },
        workflows: { once: { run: async (_: null, step) => step.run("only", () => ++ran) } },
      },
    );
    const error = await tq.workflows.startAndWait("once", null).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain("timeoutMs past it");
    const id = /run "([^"]+)" started/.exec(error?.message ?? "")?.[1];
    expect(await tq.workflows.startAndWait("once", null, { id, timeoutMs: 20_000 })).toBe(1);
    expect(ran).toBe(1);
  });
});
