// tickq jobs retry JID | --all STATE · tickq jobs delete JID | --all STATE · tickq jobs run JID
// (--all takes --name and --queue filters.)
import type { Command } from "commander";
import type { JobInfo, JobState, Tickq, JobRegistry } from "../../index.js";
import { withTickq } from "../connect.js";
import { UsageError } from "../exit.js";
import { globals } from "../global.js";
import { print, printable, printJson } from "../output.js";

interface AllOptions {
  all?: string;
  name?: string;
  queue?: string;
}

/** One jid, or --all STATE: never both, never neither. */
function target(jid: string | undefined, options: AllOptions, verb: string): { jid: string } | { state: string } {
  if (jid !== undefined && options.all !== undefined)
    throw new UsageError(`tickq jobs ${verb}: give a jid or --all STATE, not both`);
  if (jid !== undefined) {
    if (options.name !== undefined || options.queue !== undefined)
      throw new UsageError(`tickq jobs ${verb}: --name and --queue go with --all`);
    return { jid };
  }
  if (options.all !== undefined) return { state: options.all };
  throw new UsageError(`tickq jobs ${verb}: give a jid, or --all STATE`);
}

function addChange(
  jobs: Command,
  verb: "retry" | "delete",
  states: string,
  one: (tq: Tickq<JobRegistry>, jid: string) => Promise<JobInfo>,
  all: (tq: Tickq<JobRegistry>, state: string, o: AllOptions) => Promise<number>,
) {
  jobs
    .command(verb)
    .description(
      verb === "retry"
        ? "a scheduled, retry or dead job to its queue now (or --all of a state)"
        : "delete a waiting job (or --all of a state)",
    )
    .argument("[jid]")
    .option("--all <state>", `every job of a state: ${states}`)
    .option("--name <name>", "with --all: only jobs of this name")
    .option("--queue <queue>", "with --all: only jobs of this queue")
    .action(async (jid: string | undefined, options: AllOptions, command: Command) => {
      const { prefix, json } = globals(command);
      const what = target(jid, options, verb);
      await withTickq({ prefix }, async ({ tickq }) => {
        if ("jid" in what) {
          const job = await one(tickq, what.jid);
          if (json) return printJson(job);
          print(
            verb === "retry"
              ? `${printable(job.jid)} (${printable(job.name)}) queued on ${printable(job.queue)}`
              : `${printable(job.jid)} (${printable(job.name)}) deleted from ${job.state}${job.state === "queued" ? ` ${printable(job.queue)}` : ""}`,
          );
          return;
        }
        const count = await all(tickq, what.state, options);
        if (json) return printJson({ [verb === "retry" ? "retried" : "deleted"]: count });
        print(`${count} ${printable(what.state)} job(s) ${verb === "retry" ? "queued again" : "deleted"}`);
      });
    });
}

export function addJobChangeCommands(jobs: Command): void {
  addChange(
    jobs,
    "retry",
    "retry, dead, scheduled",
    (tq, jid) => tq.jobs.retry(jid),
    (tq, state, o) => tq.jobs.retryAll(state as "retry" | "dead" | "scheduled", { name: o.name, queue: o.queue }),
  );
  addChange(
    jobs,
    "delete",
    "queued (with --queue), scheduled, retry, dead",
    (tq, jid) => tq.jobs.delete(jid),
    (tq, state, o) => tq.jobs.deleteAll(state as Exclude<JobState, "running">, { name: o.name, queue: o.queue }),
  );
  jobs
    .command("run")
    .description("a scheduled or retry job to its queue now, unchanged")
    .argument("<jid>")
    .action(async (jid: string, _options: unknown, command: Command) => {
      const { prefix, json } = globals(command);
      const job = await withTickq({ prefix }, ({ tickq }) => tickq.jobs.runNow(jid));
      if (json) return printJson(job);
      print(`${printable(job.jid)} (${printable(job.name)}) queued on ${printable(job.queue)}`);
    });
}
