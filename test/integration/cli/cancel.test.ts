// `tickq jobs cancel JID` as a child process: a queued job cancelled (exit
// 0, a sentence or --json), exit 4 for a job that has ended, exit 3 for an
// unknown jid — the exit codes of the other jobs commands. With --ordered
// NAME, an ordered id: cancelled, then exit 3 once nothing of it waits.
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOverAdapters } from "../../helpers/adapters.js";
import { buildCli, type Cli, cliConnections, cliEnv } from "../../helpers/cli.js";
import { useHarness } from "../../helpers/harness.js";

describeOverAdapters(cliConnections, "tickq jobs cancel over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cli-cancel");
  let cli: Cli;
  const env = () => cliEnv(adapterCase);
  beforeAll(async () => {
    cli = await buildCli({});
  });
  afterAll(() => cli.dispose());
  const run = (...args: string[]) => cli.run([...args, "--prefix", h.prefix], env());
  const json = <T>(...args: string[]) => cli.json<T>([...args, "--prefix", h.prefix], env());

  it("cancels a queued job, then answers exit 4 for it and exit 3 for an unknown jid", async () => {
    const tq = h.make({ work: () => {} });
    const [a, b] = await tq.enqueueBulk([
      { name: "work", args: [] },
      { name: "work", args: [] },
    ]);
    const shown = await run("jobs", "cancel", a!);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`${a} cancelled \\(it was queued\\)`));
    const { body } = await json<{ state: string; from: string }>("jobs", "cancel", b!);
    expect(body).toEqual({ jid: b, state: "cancelled", from: "queued" });
    expect((await tq.jobs.result(a!)).state).toBe("cancelled");
    const again = await run("jobs", "cancel", a!);
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(/it is cancelled/);
    expect((await run("jobs", "cancel", "nope")).code).toBe(3);
    expect((await run("jobs", "result", a!)).stdout).toMatch(
      /error +TickqCancelled: cancelled \(tq.jobs.cancel\) while queued/,
    );
  });

  it("--ordered NAME cancels a waiting ordered id, then answers exit 3 for it", async () => {
    const tq = h.make({}, { ordered: { idx: { perform: () => {} } } });
    await tq.enqueueOrdered("idx", { id: "a b", payload: 1 });
    await tq.enqueueOrdered("idx", { id: "c", payload: 2 });
    const shown = await run("jobs", "cancel", "--ordered", "idx", "a b");
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(
      /idx id "a b" cancelled \(it was queued, 1 waiting payload\(s\) with it\); recorded as \S+/,
    );
    const { body } = await json<Record<string, unknown>>("jobs", "cancel", "--ordered", "idx", "c");
    expect(body).toEqual({
      name: "idx",
      id: "c",
      state: "cancelled",
      from: "queued",
      payloads: 1,
      jids: [expect.any(String)],
    });
    const [jid] = body.jids as string[];
    expect((await json<Record<string, unknown>>("jobs", "show", jid!)).body).toMatchObject({
      state: "cancelled",
      name: "idx",
      ordered: { id: "c", payloads: [2] },
    });
    expect((await run("jobs", "cancel", "--ordered", "idx", "a b")).code).toBe(3);
  });
});
