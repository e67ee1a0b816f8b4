// `tickq workflows list|show|cancel` and `tickq events send` as a child
// process: runs listed and shown with their steps, an event resolving a
// wait, a run cancelled, and exit 3 for a run id with no run.
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOverAdapters } from "../../helpers/adapters.js";
import { buildCli, type Cli, cliConnections, cliEnv } from "../../helpers/cli.js";
import { useHarness } from "../../helpers/harness.js";

describeOverAdapters(cliConnections, "tickq workflows over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cli-wf");
  let cli: Cli;
  beforeAll(async () => {
    cli = await buildCli({});
  });
  afterAll(() => cli.dispose());
  const run = (...args: string[]) => cli.run([...args, "--prefix", h.prefix], cliEnv(adapterCase));
  const json = <T>(...args: string[]) => cli.json<T>([...args, "--prefix", h.prefix], cliEnv(adapterCase));

  it("lists, shows and cancels runs, and sends events", async () => {
    const tq = h.make(
      {},
      {
        workflows: {
          w: {
            run: async (input: { k: string }, step) => {
              await step.run("first", () => ({ ok: 1 }));
              return step.waitForEvent("go", { event: "go", match: input.k });
            },
          },
        },
      },
    );
    await tq.workflows.start("w", { k: "a" }, { id: "run-a" });
    await tq.workflows.start("w", { k: "b" }, { id: "run-b" });
    await tq.tick({ budgetMs: 1_000 });

    const listed = await run("workflows", "list", "--status", "waiting");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/run-b +w +waiting/);
    const shown = await run("workflows", "show", "run-a");
    expect(shown.stdout).toMatch(/status +waiting/);
    expect(shown.stdout).toMatch(/first +completed +1 +\{"ok":1\}/);
    expect(shown.stdout).toMatch(/go +waiting +0/);

    expect((await json<{ resolved: number }>("events", "send", "go", "--match", "a", "--data", '"yes"')).body).toEqual({
      resolved: 1,
    });
    await tq.tick({ budgetMs: 1_000 });
    expect((await tq.workflows.get("run-a"))?.output).toBe("yes");

    expect((await run("workflows", "cancel", "run-b")).stdout).toMatch(/run run-b cancelled/);
    expect((await tq.workflows.get("run-b"))?.status).toBe("cancelled");
    const missing = await run("workflows", "show", "nope");
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/no workflow run "nope"/);
  });
});
