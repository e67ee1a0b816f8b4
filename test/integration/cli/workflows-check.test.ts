// `tickq workflows check --jobs MODULE` as CI runs it before a deploy: exit 6
// and a table naming the run and step when the module's code would not replay
// a live run, exit 0 once the module keeps the old version under `versions`.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { WorkflowStep } from "../../../src/index.js";
import { describeOverAdapters } from "../../helpers/adapters.js";
import { buildCli, type Cli, cliConnections, cliEnv } from "../../helpers/cli.js";
import { useHarness } from "../../helpers/harness.js";

const v1 = async (_: null, step: WorkflowStep) => {
  await step.run("charge", () => 1);
  return step.waitForEvent("paid", { event: "paid" });
};
const V1_SOURCE = `async (_, step) => { await step.run("charge", () => 1); return step.waitForEvent("paid", { event: "paid" }); }`;
const V2_SOURCE = `async (_, step) => { await step.run("charge-card", () => 1); return step.waitForEvent("paid", { event: "paid" }); }`;

describeOverAdapters(cliConnections, "tickq workflows check over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cli-wf-check");
  let cli: Cli;
  let dir: string;
  beforeAll(async () => {
    cli = await buildCli({});
    dir = mkdtempSync(join(tmpdir(), "tickq-check-"));
  });
  afterAll(() => {
    cli.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  const module = (file: string, order: string) => {
    const path = join(dir, file);
    writeFileSync(path, `export const jobs = {};\nexport const workflows = { order: ${order} };\n`);
    return path;
  };
  const check = (path: string, ...more: string[]) =>
    cli.run(["workflows", "check", "--jobs", path, ...more, "--prefix", h.prefix], cliEnv(adapterCase));

  it("exits 6 naming the run whose completed step was renamed, and 0 once the old version is kept", async () => {
    const tq = h.make({}, { workflows: { order: { run: v1 } } });
    await tq.workflows.start("order", null, { id: "order-1" });
    await tq.tick({ budgetMs: 1_000 });
    expect((await tq.workflows.get("order-1"))?.status).toBe("waiting");

    const renamed = await check(module("renamed.mjs", `{ version: 2, run: ${V2_SOURCE} }`));
    expect(renamed.code).toBe(6);
    expect(renamed.stdout).toMatch(/order-1 +order +1 +.*no version 1/);
    const inPlace = await check(module("in-place.mjs", `{ run: ${V2_SOURCE} }`), "--json");
    expect(inPlace.code).toBe(6);
    expect(JSON.parse(inPlace.stdout)).toMatchObject({
      checked: 1,
      incompatible: [{ runId: "order-1", name: "order", version: 1, step: "charge" }],
    });
    const kept = await check(module("kept.mjs", `{ version: 2, run: ${V2_SOURCE}, versions: { 1: ${V1_SOURCE} } }`));
    expect(kept.stdout).toMatch(/1 live run\(s\) checked: every one replays/);
    expect(kept.code).toBe(0);
  });
});
