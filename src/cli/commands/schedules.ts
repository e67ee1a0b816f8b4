// tickq schedules list · tickq schedules pause NAME · tickq schedules resume NAME ·
// tickq schedules run-now NAME --jobs ./app.ts
// A name no schedule has is refused (exit 3): a typo must not "pause" nothing
// and exit 0. Run now enqueues the schedule's job as this deployment declares
// it, so it needs the module that declares it.
import type { Command } from "commander";
import { specInWords } from "../../dashboard/spec-words.js";
import { TickqError, type JobRegistry, type Tickq } from "../../index.js";
import { withTickq } from "../connect.js";
import { globals } from "../global.js";
import { loadJobs } from "../load-jobs.js";
import { print, printable, printJson, table, when } from "../output.js";

export function addScheduleCommands(program: Command): void {
  const schedules = program.command("schedules").description("list, pause, resume and run recurring jobs now");
  schedules
    .command("list")
    .description("every recurring job: its spec in words, next and last run, paused")
    .action(async (_options: unknown, command: Command) => {
      const { prefix, json } = globals(command);
      const list = await withTickq({ prefix }, ({ tickq }) => tickq.schedules());
      if (json) return printJson(list);
      if (list.length === 0) return print("no schedules");
      const now = Date.now();
      print(
        table(
          ["SCHEDULE", "SPEC", "NEXT", "LAST", "PAUSED"],
          list.map((s) => [
            s.name,
            specInWords(s.spec),
            when(s.nextRunAt?.getTime() ?? null, now),
            when(s.lastRunAt?.getTime() ?? null, now),
            s.paused ? "paused" : "",
          ]),
        ),
      );
    });
  for (const verb of ["pause", "resume"] as const) {
    schedules
      .command(verb)
      .description(
        verb === "pause"
          ? "its slots pass and enqueue nothing until resumed (every deployment's ticks skip it)"
          : "runs again from its next slot (slots passed while paused are not run)",
      )
      .argument("<name>")
      .action(async (name: string, _options: unknown, command: Command) => {
        const { prefix, json } = globals(command);
        await withTickq({ prefix }, async ({ tickq }) => {
          await mustExist(tickq, name);
          await (verb === "pause" ? tickq.schedules.pause(name) : tickq.schedules.resume(name));
        });
        if (json) return printJson({ schedule: name, paused: verb === "pause" });
        print(`schedule ${printable(name)} ${verb === "pause" ? "paused" : "resumed"}`);
      });
  }
  schedules
    .command("run-now")
    .description("enqueue the schedule's job now, paused or not (as the module of --jobs declares it)")
    .argument("<name>")
    .requiredOption("--jobs <module>", "the module that declares the schedule (exports `jobs` and `schedules`)")
    .action(async (name: string, options: { jobs: string }, command: Command) => {
      const { prefix, json } = globals(command);
      const loaded = await loadJobs(options.jobs);
      const jid = await withTickq({ ...loaded, prefix }, ({ tickq }) => tickq.schedules.runNow(name));
      if (json) return printJson({ schedule: name, jid });
      print(`schedule ${printable(name)} enqueued now: ${printable(jid)}`);
    });
}

async function mustExist(tickq: Tickq<JobRegistry>, name: string): Promise<void> {
  const names = (await tickq.schedules()).map((s) => s.name);
  if (names.includes(name)) return;
  const known = names.length > 0 ? names.join(", ") : "none";
  throw new TickqError("NOT_FOUND", `no schedule named "${name}" (schedules: ${known})`);
}
