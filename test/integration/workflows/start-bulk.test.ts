// tq.workflows.startBulk: many runs in one call to Redis, their ids in
// order, all or none. A run whose id names a run of the same workflow answers
// that run (as start does); one id held by another workflow, an unknown
// workflow or a bad input starts none of them. workflow_start_bulk run twice
// with the same arguments creates each run once and answers the same.
// POST /workflows is the same call over HTTP.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import * as protocol from "../../../src/protocol/index.js";
import type { WorkflowStep } from "../../../src/workflows/types.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";

const workflows = {
  double: { run: async (input: number, step: WorkflowStep) => step.run("x", () => input * 2) },
  greet: { run: async (input: string, step: WorkflowStep) => step.run("x", () => `hi ${input}`) },
};

describe.each(adapterCases)("workflows.startBulk over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-bulk");

  it("starts every run in one call and answers their ids in order; each runs to its output", async () => {
    const tq = h.make({}, { workflows });
    const ids = await tq.workflows.startBulk([
      { name: "double", input: 1 },
      { name: "greet", input: "ann", id: "g-ann" },
      { name: "double", input: 3, id: "d-3" },
    ]);
    expect(ids).toHaveLength(3);
    expect(ids.slice(1)).toEqual(["g-ann", "d-3"]);
    expect(new Set(ids).size).toBe(3);
    for (let i = 0; i < 5; i++) await tq.tick({ budgetMs: 1_000 });
    const outputs = await Promise.all(ids.map(async (id) => (await tq.workflows.get(id))?.output));
    expect(outputs).toEqual([2, "hi ann", 6]);
    expect((await tq.stats()).workflows.double?.completed).toBe(2);
  });

  it("an id of a run of the same workflow answers that run, which keeps its input", async () => {
    const tq = h.make({}, { workflows });
    await tq.workflows.start("double", 10, { id: "kept" });
    const ids = await tq.workflows.startBulk([
      { name: "double", input: 99, id: "kept" },
      { name: "double", input: 4, id: "fresh" },
      { name: "double", input: 5, id: "fresh" },
    ]);
    expect(ids).toEqual(["kept", "fresh", "fresh"]);
    for (let i = 0; i < 4; i++) await tq.tick({ budgetMs: 1_000 });
    expect((await tq.workflows.get("kept"))?.output).toBe(20);
    expect((await tq.workflows.get("fresh"))?.output).toBe(8);
    expect((await tq.workflows.list()).runs).toHaveLength(2);
  });

  it("one id held by another workflow starts none of the runs: CONFLICT", async () => {
    const tq = h.make({}, { workflows });
    await tq.workflows.start("greet", "bob", { id: "taken" });
    await expect(
      tq.workflows.startBulk([
        { name: "double", input: 1, id: "a" },
        { name: "double", input: 2, id: "taken" },
        { name: "double", input: 3 },
      ]),
    ).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringContaining('"taken"') });
    await expect(
      tq.workflows.startBulk([
        { name: "double", input: 1, id: "twice" },
        { name: "greet", input: "x", id: "twice" },
      ]),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    expect((await tq.workflows.list()).runs.map((r) => r.id)).toEqual(["taken"]);
    expect((await tq.stats()).workflows.double?.running ?? 0).toBe(0);
  });

  it("an unknown workflow, a bad input or a bad id starts none of the runs", async () => {
    const tq = h.make({}, { workflows });
    const bad: unknown[][] = [
      [
        { name: "double", input: 1 },
        { name: "nope", input: 1 },
      ],
      [
        { name: "double", input: 1 },
        { name: "double", input: () => 1 },
      ],
      [
        { name: "double", input: 1 },
        { name: "double", input: 1, id: "" },
      ],
      [{ name: "double", input: 1 }, null],
    ];
    for (const runs of bad) await expect(tq.workflows.startBulk(runs as never)).rejects.toHaveProperty("code");
    const tooMany = Array.from({ length: 1_001 }, () => ({ name: "double" as const, input: 1 }));
    await expect(tq.workflows.startBulk(tooMany)).rejects.toMatchObject({ code: "BAD_ARGS" });
    expect((await tq.workflows.list()).runs).toEqual([]);
    expect(await tq.workflows.startBulk([])).toEqual([]);
  });

  it("workflow_start_bulk run twice with the same arguments creates each run once and answers the same", async () => {
    const runs = [
      { id: "r1", name: "double", input: "1", version: 1 },
      { id: "r2", name: "double", input: "2", version: 1 },
      { id: "r1", name: "double", input: "7", version: 1 },
    ];
    const { first } = await scriptCalls(h).callTwice(protocol.workflow_start_bulk, { all: "wf:all" }, { runs });
    expect(first).toEqual(["double", "double", "double"]);
    expect(await h.redis.hget(`${h.prefix}wf:run:r1`, "input")).toBe("1");
    expect(await h.redis.zcard(`${h.prefix}wf:due`)).toBe(2);
    expect(await h.redis.hget(`${h.prefix}wf:counts`, "running:double")).toBe("2");
  });

  it("POST /workflows starts the runs of its body in one call: 201 { ids }; a conflict is 409 and starts none", async () => {
    const SECRET = "wf-bulk-secret-0123456789";
    const app = createApp({ tickq: h.make({}, { workflows }), secrets: [SECRET] });
    const post = (body: unknown) =>
      app.request("/workflows", {
        method: "POST",
        body: JSON.stringify(body),
        headers: { Authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
      });
    const ok = await post({
      runs: [
        { name: "double", input: 2, id: "h1" },
        { name: "greet", input: "z" },
      ],
    });
    expect(ok.status).toBe(201);
    const { ids } = (await ok.json()) as { ids: string[] };
    expect(ids[0]).toBe("h1");
    expect(ids).toHaveLength(2);
    const clash = await post({
      runs: [
        { name: "double", input: 1, id: "h2" },
        { name: "greet", input: "y", id: "h1" },
      ],
    });
    expect(clash.status).toBe(409);
    expect((await post({ runs: "no" })).status).toBe(400);
    expect((await post({ runs: [], kick: "yes" })).status).toBe(400);
    expect(await h.make({}, { workflows }).workflows.get("h2")).toBeUndefined();
  });
});
