// The routes that repair workflow runs: POST /workflows/:id/retry resumes a
// failed run ({ runId, status }), POST /workflows/:id/fork starts a run from
// a step (201 { id }), POST /workflows/:name/retry-all?status=failed retries a
// workflow's failed runs ({ retried }). Every refusal is a 4xx `{ error, code }`:
// 404 NOT_FOUND, 409 CONFLICT (a live or completed run), 400 BAD_ARGS or BAD_STATE.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { adapterCases } from "../../helpers/adapters.js";
import { breakableWorkflow } from "../../helpers/breakable-workflow.js";
import { useHarness } from "../../helpers/harness.js";

const SECRET = "workflow-repair-secret";
const auth = { Authorization: `Bearer ${SECRET}` };
const post = (body?: unknown) => ({
  method: "POST",
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  headers: { ...auth, "content-type": "application/json" },
});

describe.each(adapterCases)("workflow retry and fork routes over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-http-repair");

  it("retries, forks and retries all over HTTP, refusing with a code", async () => {
    const { broken, workflows } = breakableWorkflow();
    const tq = h.make({}, { workflows });
    const app = createApp({ tickq: tq, secrets: [SECRET] });
    const [one, two] = [await tq.workflows.start("two", { k: 1 }), await tq.workflows.start("two", { k: 5 })];
    for (const id of [one, two]) await tq.workflows.result(id, { drive: true, timeoutMs: 10_000 }).catch(() => {});
    broken.now = false;

    const retried = await app.request(`/workflows/${one}/retry`, post());
    expect(retried.status).toBe(200);
    expect(await retried.json()).toEqual({ runId: one, status: "running" });
    const live = await app.request(`/workflows/${one}/retry`, post());
    expect(live.status).toBe(200);
    const all = await app.request("/workflows/two/retry-all?status=failed", post());
    expect(await all.json()).toEqual({ retried: 1 });
    for (const id of [one, two]) await tq.workflows.result(id, { drive: true, timeoutMs: 10_000 });
    const completed = await app.request(`/workflows/${one}/retry`, post());
    expect(completed.status).toBe(409);
    expect(await completed.json()).toMatchObject({ code: "CONFLICT", error: expect.stringMatching(/fork/) });
    expect(await (await app.request("/workflows/nope/retry", post())).json()).toMatchObject({ code: "NOT_FOUND" });

    const forked = await app.request(`/workflows/${one}/fork`, post({ fromStep: "b", id: "fork-1", input: { k: 9 } }));
    expect(forked.status).toBe(201);
    expect(await forked.json()).toEqual({ id: "fork-1" });
    expect(await tq.workflows.result("fork-1", { drive: true, timeoutMs: 10_000 })).toBe(2);
    for (const [body, code] of [
      [{}, "BAD_ARGS"],
      [{ fromStep: "zz" }, "BAD_ARGS"],
      [{ fromStep: 3 }, "BAD_ARGS"],
    ] as const) {
      const refused = await app.request(`/workflows/${one}/fork`, post(body));
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ code });
    }
    const state = await app.request("/workflows/two/retry-all?status=completed", post());
    expect(state.status).toBe(400);
    expect(await state.json()).toMatchObject({ code: "BAD_STATE" });
    expect((await app.request(`/workflows/${one}/retry`, { method: "POST" })).status).toBe(401);
  });
});
