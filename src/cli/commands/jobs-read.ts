// tickq jobs list STATE [--queue Q] [--name N] [--limit N] [--cursor C] [--order oldest|newest]
// tickq jobs show JID (tickq jobs result JID: jobs-result.ts)
import type { Command } from "commander";
import { JOB_STATES, type JobInfo, type JobState } from "../../index.js";
import { withTickq } from "../connect.js";
import { globals, intOption } from "../global.js";
import { clip, print, printable, printJson, relative, table, terminalJson, when } from "../output.js";

/** Where a job is, in a few words: position, due, died, or its tick. */
function place(job: JobInfo, nowMs: number): string {
  if (job.state === "queued") return job.position === 0 ? "next" : `${job.position} ahead`;
  if (job.state === "running") return `tick ${printable(String(job.tick))}${job.tickAlive ? "" : " (dead)"}`;
  if (job.at === undefined) return "";
  if (job.state === "succeeded") return `finished ${relative(job.at, nowMs)}`;
  if (job.state === "cancelled" || job.state === "expired") return `${job.state} ${relative(job.at, nowMs)}`;
  return job.state === "dead" ? `died ${relative(job.at, nowMs)}` : `due ${relative(job.at, nowMs)}`;
}

const errorOf = (job: JobInfo) => (job.job.error_class ? `${job.job.error_class}: ${job.job.error_message ?? ""}` : "");

/**
 * Its `retry`; a job written without one (tickq enqueue without --jobs) is retried as the definition of
 * the tick that runs it says, which the jobs API (reading it as false) cannot know.
 */
function retryOf(job: JobInfo): string {
  try {
    const stored = JSON.parse(job.raw) as unknown;
    if (typeof stored === "object" && stored !== null && !Object.hasOwn(stored, "retry")) return "its definition's";
  } catch {
    // not JSON: as the jobs API read it
  }
  return String(job.job.retry);
}

function printJob(job: JobInfo, nowMs: number): void {
  const p = job.job;
  const rows: [string, string][] = [
    ["jid", job.jid],
    ["name", job.name],
    ["state", job.state],
    ["queue", job.queue],
    ["where", place(job, nowMs)],
    ["args", clip(terminalJson(p.args), 2_000)],
    ["retry", retryOf(job)],
  ];
  if (typeof p.retry_count === "number") rows.push(["retry count", String(p.retry_count)]);
  for (const field of ["created_at", "enqueued_at", "failed_at", "retried_at"] as const) {
    if (typeof p[field] === "number") rows.push([field.replace("_", " "), when(p[field] * 1000, nowMs)]);
  }
  if (job.expiresAt !== undefined) rows.push(["expires", when(job.expiresAt, nowMs)]);
  if (p.error_class) rows.push(["error", `${p.error_class}: ${p.error_message ?? ""}`]);
  if (job.durationMs !== undefined) rows.push(["duration", `${job.durationMs} ms`]);
  if (job.resultError !== undefined) rows.push(["result", `not kept: ${job.resultError}`]);
  else if (job.result !== undefined) rows.push(["result", clip(terminalJson(job.result), 2_000)]);
  print(table(["", ""], rows).split("\n").slice(1).join("\n"));
  const backtrace = job.backtrace ?? [];
  if (backtrace.length > 0) print(`\nbacktrace:\n${backtrace.map((l) => `  ${printable(String(l))}`).join("\n")}`);
  const log = Array.isArray(p.tickq_log) ? (p.tickq_log as unknown[]) : [];
  if (log.length > 0) print(`\nlog of the failed run:\n${log.map((l) => `  ${printable(String(l))}`).join("\n")}`);
}

export function addJobReadCommands(jobs: Command): void {
  jobs
    .command("list")
    .description(`one page of the jobs in a state: ${JOB_STATES.join(", ")}`)
    .argument("<state>", JOB_STATES.join(" | "))
    .option("--queue <queue>", "only this queue (for queued: the queue to list)")
    .option("--name <name>", "only jobs of this name")
    .option("--limit <n>", "jobs per page (1–1000)", "25")
    .option("--cursor <cursor>", "the next page, as the previous one printed it")
    .option("--order <order>", "oldest (default; newest for dead and history: succeeded, cancelled, expired) or newest")
    .action(
      async (
        state: string,
        options: { queue?: string; name?: string; limit: string; cursor?: string; order?: string },
        command: Command,
      ) => {
        const { prefix, json } = globals(command);
        const limit = intOption(options.limit, "--limit", 1);
        const page = await withTickq({ prefix }, ({ tickq }) =>
          tickq.jobs.list(state as JobState, {
            queue: options.queue,
            name: options.name,
            limit,
            cursor: options.cursor,
            order: options.order as "oldest" | "newest" | undefined,
          }),
        );
        if (json) return printJson({ jobs: page.jobs.map(({ raw: _raw, ...rest }) => rest), cursor: page.cursor });
        const now = Date.now();
        if (page.jobs.length === 0) print(`no ${printable(state)} jobs${page.cursor ? " on this page" : ""}`);
        else
          print(
            table(
              ["JID", "NAME", "QUEUE", "WHERE", "ERROR"],
              page.jobs.map((j) => [j.jid, j.name, j.queue, place(j, now), clip(errorOf(j), 60)]),
            ),
          );
        if (page.cursor) print(`\nmore: tickq jobs list ${printable(state)} --cursor ${printable(page.cursor)}`);
      },
    );

  jobs
    .command("show")
    .description("where a job is, its args, and its error, backtrace and log if it failed")
    .argument("<jid>")
    .action(async (jid: string, _options: unknown, command: Command) => {
      const { prefix, json } = globals(command);
      const { TickqError } = await import("../../index.js");
      const found = await withTickq({ prefix }, ({ tickq }) => tickq.jobs.find(jid));
      if (!found)
        throw new TickqError(
          "NOT_FOUND",
          `no job with jid ${terminalJson(jid)} (it succeeded and no record was kept, was deleted, or never existed)`,
        );
      if (json) return printJson(found);
      printJob(found, Date.now());
    });
}
