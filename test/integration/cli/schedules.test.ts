// `tickq schedules list|pause|resume|run-now` as a child process: the list
// says each spec in words with its next run, pause and resume show in it and
// in tq.schedules(), run now enqueues the schedule's job as the module of
// --jobs declares it; a name no schedule has exits 3.
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOverAdapters } from "../../helpers/adapters.js";
import { buildCli, type Cli, cliConnections, cliEnv } from "../../helpers/cli.js";
import { useHarness } from "../../helpers/harness.js";

describeOverAdapters(cliConnections, "tickq schedules over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cli-schedules");
  let cli: Cli;
  beforeAll(async () => {
    cli = await buildCli({});
  });
  afterAll(() => cli.dispose());
  const run = (...args: string[]) => cli.run([...args, "--prefix", h.prefix], cliEnv(adapterCase));

  it("lists, pauses, resumes and runs a schedule now; an unknown name exits 3", async () => {
    const tq = h.make(
      { report: async () => {} },
      { schedules: { hourly: { every: 3_600_000, job: "report", args: ["from-schedule"] } } },
    );
    await tq.tick(); // syncs the schedule to Redis

    const listed = await run("schedules", "list");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/hourly\s+every 1 h/);
    expect(listed.stdout).not.toMatch(/paused/);

    expect(await run("schedules", "pause", "hourly")).toMatchObject({ code: 0, stdout: "schedule hourly paused\n" });
    expect((await tq.schedules()).find((s) => s.name === "hourly")?.paused).toBe(true);
    expect((await run("schedules", "list")).stdout).toMatch(/hourly.*paused/);
    expect((await run("schedules", "resume", "hourly")).stdout).toBe("schedule hourly resumed\n");
    expect((await tq.schedules()).find((s) => s.name === "hourly")?.paused).toBe(false);

    const unknown = await run("schedules", "pause", "hourlly");
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/no schedule named "hourlly" \(schedules: hourly\)/);

    const now = await run("schedules", "run-now", "hourly", "--jobs", "test/fixtures/schedule-jobs.mjs");
    expect(now.code).toBe(0);
    const jid = now.stdout.match(/enqueued now: (\S+)/)?.[1];
    expect(jid).toBeDefined();
    expect(await tq.jobs.find(jid!)).toMatchObject({
      state: "queued",
      job: { class: "report", args: ["from-schedule"] },
    });
  });
});
