// `tickq jobs result JID` as a child process: a succeeded job's value, a dead
// job's error, --json, and exit 3 when no record of the job is left.
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOverAdapters } from "../../helpers/adapters.js";
import { buildCli, type Cli, cliConnections, cliEnv } from "../../helpers/cli.js";
import { useHarness } from "../../helpers/harness.js";

describeOverAdapters(cliConnections, "tickq jobs result over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cli-result");
  let cli: Cli;
  const env = () => cliEnv(adapterCase);
  beforeAll(async () => {
    cli = await buildCli({});
  });
  afterAll(() => cli.dispose());
  const run = (...args: string[]) => cli.run([...args, "--prefix", h.prefix], env());
  const json = <T>(...args: string[]) => cli.json<T>([...args, "--prefix", h.prefix], env());

  it("prints a succeeded job's result and a dead job's error, as a table or JSON", async () => {
    const tq = h.make(
      {
        sum: (xs: number[]) => xs.reduce((a, b) => a + b, 0),
        fail: {
          retry: false,
          perform: () => {
            throw new Error("no way");
          },
        },
      },
      { keepCompleted: { count: 5 } },
    );
    const [ok, dead] = await tq.enqueueBulk([
      { name: "sum", args: [1, 2, 3] },
      { name: "fail", args: [] },
    ]);
    await tq.tick();

    const shown = await run("jobs", "result", ok!);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/state +succeeded/);
    expect(shown.stdout).toMatch(/result +6\n/);
    const { body } = await json<{ state: string; value: unknown }>("jobs", "result", ok!);
    expect(body).toMatchObject({ state: "succeeded", value: 6 });

    expect((await run("jobs", "result", dead!)).stdout).toMatch(/error +Error: no way/);
    const missing = await run("jobs", "result", "nope");
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/no record of job "nope"/);
  });
});
