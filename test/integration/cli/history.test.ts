// `tickq jobs list expired` as a child process: the history of jobs never
// started because their expiry passed, newest first, as a table or JSON;
// `tickq jobs result` says a job expired.
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOverAdapters } from "../../helpers/adapters.js";
import { buildCli, type Cli, cliConnections, cliEnv } from "../../helpers/cli.js";
import { useHarness } from "../../helpers/harness.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeOverAdapters(cliConnections, "tickq jobs list expired over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cli-history");
  let cli: Cli;
  const env = () => cliEnv(adapterCase);
  beforeAll(async () => {
    cli = await buildCli({});
  });
  afterAll(() => cli.dispose());
  const run = (...args: string[]) => cli.run([...args, "--prefix", h.prefix], env());
  const json = <T>(...args: string[]) => cli.json<T>([...args, "--prefix", h.prefix], env());

  it("lists expired jobs and shows one's state", async () => {
    const tq = h.make({ work: () => {} });
    const jid = await tq.enqueue("work", ["late"], { expiresInMs: 1, kick: false });
    await sleep(5);
    await tq.tick({ budgetMs: 1_000 });

    const shown = await run("jobs", "list", "expired");
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(jid);
    expect(shown.stdout).toMatch(/expired /);
    const { body } = await json<{ jobs: { jid: string; state: string }[] }>("jobs", "list", "expired");
    expect(body.jobs.map((j) => [j.jid, j.state])).toEqual([[jid, "expired"]]);
    expect((await run("jobs", "result", jid)).stdout).toMatch(/state +expired/);
  });
});
