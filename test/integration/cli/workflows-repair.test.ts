// `tickq workflows retry|fork|retry-all` as a child process: a failed run
// resumed, a run forked from a step with a new input, a workflow's failed
// runs retried; exit 3 for no run, 4 for a run the command does not take.
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOverAdapters } from "../../helpers/adapters.js";
import { buildCli, type Cli, cliConnections, cliEnv } from "../../helpers/cli.js";
import { breakableWorkflow } from "../../helpers/breakable-workflow.js";
import { useHarness } from "../../helpers/harness.js";

describeOverAdapters(cliConnections, "tickq workflows retry and fork over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cli-wf-repair");
  let cli: Cli;
  beforeAll(async () => {
    cli = await buildCli({});
  });
  afterAll(() => cli.dispose());
  const run = (...args: string[]) => cli.run([...args, "--prefix", h.prefix], cliEnv(adapterCase));

  it("retries, forks and retries all, with exit codes for no run and a live run", async () => {
    const { broken, workflows } = breakableWorkflow();
    const tq = h.make({}, { workflows });
    for (const id of ["run-1", "run-2"]) {
      await tq.workflows.start("two", { k: 1 }, { id });
      await tq.workflows.result(id, { drive: true, timeoutMs: 10_000 }).catch(() => {});
    }
    broken.now = false;
    const retried = await run("workflows", "retry", "run-1");
    expect(retried).toMatchObject({ code: 0, stdout: expect.stringMatching(/run run-1 resumed/) });
    expect((await run("workflows", "retry-all", "--name", "two")).stdout).toMatch(/retried 1 failed run\(s\) of two/);
    expect(await tq.workflows.result("run-1", { drive: true, timeoutMs: 10_000 })).toBe(2);
    expect(await tq.workflows.result("run-2", { drive: true, timeoutMs: 10_000 })).toBe(2);
    const forked = await run("workflows", "fork", "run-1", "--from-step", "a", "--id", "run-3", "--input", '{"k":7}');
    expect(forked.stdout).toMatch(/run run-3 forked from run-1 at step a/);
    expect(await tq.workflows.result("run-3", { drive: true, timeoutMs: 10_000 })).toBe(8);
    expect((await run("workflows", "retry", "run-1")).code).toBe(4);
    expect((await run("workflows", "retry", "nope")).code).toBe(3);
    expect((await run("workflows", "fork", "run-1", "--from-step", "zz")).code).toBe(2);
  });
});
