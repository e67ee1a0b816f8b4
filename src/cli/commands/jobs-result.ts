// tickq jobs result JID: where the job stands, and its result or error once it ended.
import type { Command } from "commander";
import type { JobResult } from "../../index.js";
import { withTickq } from "../connect.js";
import { globals } from "../global.js";
import { clip, print, printJson, table, terminalJson, when } from "../output.js";

function rowsOf(result: JobResult, nowMs: number): [string, string][] {
  const rows: [string, string][] = [["state", result.state]];
  if (result.state === "succeeded") {
    rows.push(["finished", when(result.finishedAt, nowMs)], ["duration", `${result.durationMs} ms`]);
    if (result.resultError !== undefined) rows.push(["result", `not kept: ${result.resultError}`]);
    else rows.push(["result", result.value === undefined ? "(none)" : clip(terminalJson(result.value), 2_000)]);
  }
  if (result.state === "expired")
    rows.push(["expired", when(result.expiredAt, nowMs)], ["expiry", when(result.expiresAt, nowMs)]);
  if (result.state === "cancelled") rows.push(["cancelled", when(result.finishedAt, nowMs)]);
  if (result.state === "failed" || result.state === "dead" || result.state === "cancelled")
    rows.push(["error", `${result.error.class}: ${result.error.message}`]);
  return rows;
}

export function addJobResultCommand(jobs: Command): void {
  jobs
    .command("result")
    .description(
      "where a job stands, and its result (succeeded) or error (failed, dead); exit 3 when no record of it is left",
    )
    .argument("<jid>")
    .action(async (jid: string, _options: unknown, command: Command) => {
      const { prefix, json } = globals(command);
      const { TickqError } = await import("../../index.js");
      const result = await withTickq({ prefix }, ({ tickq }) => tickq.jobs.result(jid));
      if (result.state === "unknown") {
        throw new TickqError(
          "NOT_FOUND",
          `no record of job ${terminalJson(jid)}: never enqueued, deleted, or it succeeded and no result was kept (keepCompleted)`,
        );
      }
      if (json) return printJson(result);
      print(table(["", ""], rowsOf(result, Date.now())).split("\n").slice(1).join("\n"));
    });
}
