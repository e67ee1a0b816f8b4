// The workflow routes, behind the app's auth: POST /workflows/:name starts a
// run (201; the same id again answers it; an unknown workflow is 400, an id
// of another workflow 409), POST /events resolves waits, GET /workflows lists
// runs, GET /workflows/:id reads one (404 when none), POST /workflows/:id/cancel
// cancels it. Without a secret: 401, nothing started. A start kicks a tick
// in the request's background when the app kicks (or its body says kick).
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import type { WorkflowStep } from "../../../src/workflows/types.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const SECRET = "workflow-routes-secret";
const auth = { Authorization: `Bearer ${SECRET}` };
const post = (body: unknown) => ({
  method: "POST",
  body: JSON.stringify(body),
  headers: { ...auth, "content-type": "application/json" },
});

describe.each(adapterCases)("workflow routes over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-http");

  it("a start kicks a tick in the request's background when the app kicks, or when its body asks", async () => {
    const workflows = {
      quick: { run: async (input: { n: number }, step: WorkflowStep) => step.run("x", () => input.n + 1) },
    };
    const kicked: Promise<unknown>[] = [];
    const waitUntil = (p: Promise<unknown>) => void kicked.push(p);
    const kicking = createApp({ tickq: h.make({}, { workflows }), secrets: [SECRET], kick: true, waitUntil });
    const plain = createApp({ tickq: h.make({}, { workflows }), secrets: [SECRET], waitUntil });
    const ids: string[] = [];
    for (const [app, body] of [
      [plain, { input: { n: 1 } }],
      [kicking, { input: { n: 2 }, kick: false }],
    ] as const) {
      ids.push(((await (await app.request("/workflows/quick", post(body))).json()) as { id: string }).id);
    }
    expect(kicked).toHaveLength(0);
    for (const [app, body] of [
      [kicking, { input: { n: 3 } }],
      [plain, { input: { n: 4 }, kick: true }],
    ] as const) {
      ids.push(((await (await app.request("/workflows/quick", post(body))).json()) as { id: string }).id);
    }
    expect(kicked).toHaveLength(2);
    await Promise.all(kicked);
    const outputs = [];
    for (const id of ids)
      outputs.push(
        ((await (await plain.request(`/workflows/${id}`, { headers: auth })).json()) as { output?: number }).output,
      );
    expect(outputs.slice(2)).toEqual([4, 5]);
    expect((await plain.request("/workflows/quick", post({ input: { n: 1 }, kick: "yes" }))).status).toBe(400);
  });

  it("start, send an event, read, list and cancel runs over HTTP", async () => {
    const tq = h.make(
      {},
      {
        workflows: {
          onboard: {
            run: async (input: { user: string }, step) => step.waitForEvent("go", { event: "go", match: input.user }),
          },
        },
      },
    );
    const app = createApp({ tickq: tq, secrets: [SECRET] });

    const started = await app.request("/workflows/onboard", post({ input: { user: "42" }, id: "r42" }));
    expect(started.status).toBe(201);
    expect(await started.json()).toEqual({ id: "r42" });
    expect(await (await app.request("/workflows/onboard", post({ input: { user: "x" }, id: "r42" }))).json()).toEqual({
      id: "r42",
    });
    const other = await app.request("/workflows/onboard", post({ input: { user: "43" } }));
    const { id: other43 } = (await other.json()) as { id: string };

    const unknown = await app.request("/workflows/nope", post({ input: 1 }));
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ code: "UNKNOWN_JOB" });
    expect((await app.request("/workflows/onboard", post({ id: 7 }))).status).toBe(400);
    expect((await app.request("/events", post({ match: "42" }))).status).toBe(400);

    await tq.tick({ budgetMs: 1_000 });
    const sent = await app.request("/events", post({ event: "go", match: "42", data: { ok: true } }));
    expect(await sent.json()).toEqual({ resolved: 1 });
    await tq.tick({ budgetMs: 1_000 });
    const run = await app.request("/workflows/r42", { headers: auth });
    expect(await run.json()).toMatchObject({ id: "r42", status: "completed", output: { ok: true } });
    expect((await app.request("/workflows/none", { headers: auth })).status).toBe(404);

    const cancelled = await app.request(`/workflows/${other43}/cancel`, post({}));
    expect(await cancelled.json()).toEqual({ id: other43, status: "cancelled" });
    const list = await app.request("/workflows?status=completed&limit=10", { headers: auth });
    expect(await list.json()).toEqual({ runs: [expect.objectContaining({ id: "r42", name: "onboard" })] });
    expect((await app.request("/workflows?status=nope", { headers: auth })).status).toBe(400);

    const anonymous = await app.request("/workflows/onboard", {
      method: "POST",
      body: JSON.stringify({ input: { user: "9" } }),
      headers: { "content-type": "application/json" },
    });
    expect(anonymous.status).toBe(401);
    expect((await tq.workflows.list()).runs).toHaveLength(2);
  });
});
