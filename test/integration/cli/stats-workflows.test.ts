// `tickq stats --json` shows the workflows block the app's stats() (and so
// GET /stats) shows: the CLI's tickq declares no workflows, so it reads the
// names Redis counts runs of. Run as a child process against real Redis.
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOverAdapters } from "../../helpers/adapters.js";
import { buildCli, type Cli, cliConnections, cliEnv } from "../../helpers/cli.js";
import { useHarness } from "../../helpers/harness.js";

describeOverAdapters(cliConnections, "tickq stats over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cli-wf-stats");
  let cli: Cli;
  beforeAll(async () => {
    cli = await buildCli({});
  });
  afterAll(() => cli.dispose());
  const json = <T>(...args: string[]) => cli.json<T>([...args, "--prefix", h.prefix], cliEnv(adapterCase));

  it("stats --json counts workflow runs by status as the app's stats do", async () => {
    const tq = h.make(
      {},
      {
        workflows: {
          onboard: { run: async (_: null, step) => step.waitForEvent("go", { event: "go" }) },
          "billing.monthly": { run: async (n: number, step) => step.run("bill", () => n) },
        },
      },
    );
    await tq.workflows.start("onboard", null, { id: "o-1" });
    await tq.workflows.start("onboard", null, { id: "o-2" });
    await tq.workflows.start("billing.monthly", 1, { id: "b-1" });
    await tq.tick({ budgetMs: 1_000 });
    await tq.workflows.cancel("o-2");

    const app = (await tq.stats()).workflows;
    expect(app.onboard).toMatchObject({ waiting: 1, cancelled: 1 });
    expect(app["billing.monthly"]).toMatchObject({ completed: 1 });
    const { code, body } = await json<{ workflows: unknown }>("stats");
    expect(code).toBe(0);
    expect(body.workflows).toEqual(app);
  });

  it("stats --json shows an empty workflows block where no run was ever counted", async () => {
    const { body } = await json<{ workflows: unknown }>("stats");
    expect(body.workflows).toEqual({});
  });
});
