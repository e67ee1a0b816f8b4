// tickq workflows list [--status S] [--name N] [--limit L] · tickq workflows show RUN_ID ·
// tickq workflows cancel RUN_ID · tickq events send EVENT [--match M] [--data JSON]
// Read and act through tq.workflows, never keys. A run id with no run: exit 3.
import type { Command } from "commander";
import { TickqError, type WorkflowStatus } from "../../index.js";
import { withTickq } from "../connect.js";
import { globals } from "../global.js";
import { clip, print, printable, printJson, table, terminalJson, when } from "../output.js";

export function addWorkflowCommands(program: Command): void {
  const workflows = program.command("workflows").description("list, show and cancel workflow runs");
  workflows
    .command("list")
    .description("workflow runs, newest first")
    .option("--status <status>", "running, sleeping, waiting, completed, failed or cancelled")
    .option("--name <name>", "runs of this workflow only")
    .option("--limit <n>", "runs to show (1–500)", "50")
    .action(async (options: { status?: string; name?: string; limit: string }, command: Command) => {
      const { prefix, json } = globals(command);
      const page = await withTickq({ prefix }, ({ tickq }) =>
        tickq.workflows.list({
          status: options.status as WorkflowStatus | undefined,
          name: options.name,
          limit: Number(options.limit),
        }),
      );
      if (json) return printJson(page);
      if (page.runs.length === 0) return print("no workflow runs");
      const now = Date.now();
      print(
        table(
          ["RUN", "WORKFLOW", "STATUS", "UPDATED"],
          page.runs.map((r) => [r.id, r.name, r.status, when(r.updatedAt, now)]),
        ),
      );
    });
  workflows
    .command("show")
    .description("a run: its status, output or error, and each step with its attempts, result or error")
    .argument("<runId>")
    .action(async (runId: string, _options: unknown, command: Command) => {
      const { prefix, json } = globals(command);
      const run = await withTickq({ prefix }, ({ tickq }) => tickq.workflows.get(runId));
      if (!run) throw new TickqError("NOT_FOUND", `no workflow run ${terminalJson(runId)}`);
      if (json) return printJson(run);
      const now = Date.now();
      print(
        `run       ${printable(run.id)}\nworkflow  ${printable(run.name)}\nstatus    ${run.status}\nupdated   ${when(run.updatedAt, now)}`,
      );
      if (run.output !== undefined) print(`output    ${clip(terminalJson(run.output), 2_000)}`);
      if (run.error)
        print(
          `error     ${printable(`${run.error.name}: ${run.error.message}`)}${run.error.step ? ` (step ${printable(run.error.step)})` : ""}`,
        );
      if (run.steps.length === 0) return;
      print(
        `\n${table(
          ["STEP", "STATUS", "ATTEMPTS", "RESULT OR ERROR"],
          run.steps.map((s) => [
            s.name,
            s.status,
            String(s.attempts),
            s.error
              ? `${s.error.name}: ${s.error.message}`
              : s.wakeAt !== undefined
                ? `until ${when(s.wakeAt, now)}`
                : clip(s.result === undefined ? "" : terminalJson(s.result), 120),
          ]),
        )}`,
      );
    });
  workflows
    .command("cancel")
    .description("cancel a run: no further step starts, a running step's signal aborts")
    .argument("<runId>")
    .action(async (runId: string, _options: unknown, command: Command) => {
      const { prefix, json } = globals(command);
      const status = await withTickq({ prefix }, ({ tickq }) => tickq.workflows.cancel(runId));
      if (json) return printJson({ id: runId, status });
      const run = printable(runId);
      print(
        status === "cancelled"
          ? `run ${run} cancelled`
          : status === "cancelling"
            ? `run ${run} cancelled; its tick has not yet said it heard (a step may start until it does, or its lease ends)`
            : `run ${run} had already ended: ${status}`,
      );
    });

  const events = program.command("events").description("send events to workflow runs");
  events
    .command("send")
    .description(
      "send EVENT (and --match) with --data to the waits parked on it, and keep it for later waits; prints how many waits it found",
    )
    .argument("<event>")
    .option("--match <match>", "only waits with this match", "")
    .option("--data <json>", "the event's data, JSON", "null")
    .option("--id <id>", "the event's id: sent again within the retention, it is a no-op")
    .action(async (event: string, options: { match: string; data: string; id?: string }, command: Command) => {
      const { prefix, json } = globals(command);
      let data: unknown;
      try {
        data = JSON.parse(options.data);
      } catch {
        throw new TickqError("BAD_ARGS", `--data must be JSON, got ${terminalJson(options.data)}`);
      }
      const resolved = await withTickq({ prefix }, ({ tickq }) =>
        tickq.workflows.sendEvent(event, {
          match: options.match,
          data,
          ...(options.id === undefined ? {} : { id: options.id }),
        }),
      );
      if (json) return printJson({ resolved });
      print(
        resolved === 0
          ? "no run waited for it (it is kept for waits that park later, unless its id was sent before)"
          : `resolved ${resolved} wait(s)`,
      );
    });
}
