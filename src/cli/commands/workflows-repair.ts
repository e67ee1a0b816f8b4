// tickq workflows retry RUN_ID · tickq workflows fork RUN_ID --from-step S
// [--id ID] [--input JSON] · tickq workflows retry-all --name N: repair runs
// through tq.workflows (retry, fork, retryAll). A run id with no run: exit 3;
// a run in a state the command does not take: exit 4.
import type { Command } from "commander";
import { TickqError } from "../../index.js";
import { withTickq } from "../connect.js";
import { globals } from "../global.js";
import { print, printable, printJson, terminalJson } from "../output.js";

export function addWorkflowRepairCommands(workflows: Command): void {
  workflows
    .command("retry")
    .description("resume a failed or cancelled run at the step that ended it (its completed steps kept)")
    .argument("<runId>")
    .action(async (runId: string, _options: unknown, command: Command) => {
      const { prefix, json } = globals(command);
      const retried = await withTickq({ prefix }, ({ tickq }) => tickq.workflows.retry(runId));
      if (json) return printJson(retried);
      print(`run ${printable(runId)} ${retried.status === "running" ? "resumed" : retried.status}`);
    });
  workflows
    .command("fork")
    .description("start a new run of the run's workflow and version from a step; the steps before it are copied")
    .argument("<runId>")
    .requiredOption("--from-step <step>", "the step the new run starts at")
    .option("--id <id>", "the new run's id (the same id again answers the same run)")
    .option("--input <json>", "the new run's input, JSON (default the run's)")
    .action(async (runId: string, options: { fromStep: string; id?: string; input?: string }, command: Command) => {
      const { prefix, json } = globals(command);
      let input: unknown;
      if (options.input !== undefined) {
        try {
          input = JSON.parse(options.input);
        } catch {
          throw new TickqError("BAD_ARGS", `--input must be JSON, got ${terminalJson(options.input)}`);
        }
      }
      const forked = await withTickq({ prefix }, ({ tickq }) =>
        tickq.workflows.fork(runId, {
          fromStep: options.fromStep,
          ...(options.id === undefined ? {} : { id: options.id }),
          ...(options.input === undefined ? {} : { input }),
        }),
      );
      if (json) return printJson({ id: forked });
      print(`run ${printable(forked)} forked from ${printable(runId)} at step ${printable(options.fromStep)}`);
    });
  workflows
    .command("retry-all")
    .description("retry every failed run of a workflow")
    .requiredOption("--name <name>", "the workflow")
    .action(async (options: { name: string }, command: Command) => {
      const { prefix, json } = globals(command);
      const answer = await withTickq({ prefix }, ({ tickq }) =>
        tickq.workflows.retryAll({ name: options.name, status: "failed" }),
      );
      if (json) return printJson(answer);
      print(`retried ${answer.retried} failed run(s) of ${printable(options.name)}`);
    });
}
