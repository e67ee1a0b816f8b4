// tickq workflows check --jobs ./app.ts [--name N]: replays every live run's
// history against the module's workflows (tq.workflows.check, page after
// page) before a deploy; prints the runs the code would not replay and exits
// EXIT.INCOMPATIBLE when there is one, so CI can stop the deploy.
import type { Command } from "commander";
import type { WorkflowIncompatibility } from "../../index.js";
import { withTickq } from "../connect.js";
import { EXIT } from "../exit.js";
import { globals } from "../global.js";
import { loadJobs } from "../load-jobs.js";
import { print, printJson, table } from "../output.js";

export function addWorkflowCheckCommand(workflows: Command): void {
  workflows
    .command("check")
    .description(
      `replay the live runs against the workflows of --jobs (the code about to be deployed); exit ${EXIT.INCOMPATIBLE} when a run would not replay`,
    )
    .requiredOption("--jobs <module>", "the module of the code to deploy, exporting `workflows`")
    .option("--name <name>", "runs of this workflow only")
    .action(async (options: { jobs: string; name?: string }, command: Command) => {
      const { prefix, json } = globals(command);
      const loaded = await loadJobs(options.jobs);
      const { checked, incompatible } = await withTickq({ ...loaded, prefix }, async ({ tickq }) => {
        const all: WorkflowIncompatibility[] = [];
        let count = 0;
        let cursor: string | undefined;
        do {
          const page = await tickq.workflows.check({ name: options.name, cursor });
          count += page.checked;
          all.push(...page.incompatible);
          cursor = page.cursor;
        } while (cursor !== undefined);
        return { checked: count, incompatible: all };
      });
      if (json) printJson({ checked, incompatible });
      else if (incompatible.length === 0) print(`${checked} live run(s) checked: every one replays on this code`);
      else {
        print(
          table(
            ["RUN", "WORKFLOW", "VERSION", "STEP", "REASON"],
            incompatible.map((r) => [r.runId, r.name, String(r.version), r.step ?? "", r.reason]),
          ),
        );
        print(
          `\n${incompatible.length} of ${checked} live run(s) would not replay: bump the workflow's \`version\` and keep the old \`run\` under \`versions\` until its runs end`,
        );
      }
      if (incompatible.length > 0) process.exitCode = EXIT.INCOMPATIBLE;
    });
}
