#!/usr/bin/env node
// `npx tickq …`: operate tickq from a terminal or a script. Connects through
// REDIS_URL (a Redis Cluster with --cluster), or UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN; human
// tables by default, --json for scripts; exit codes in exit.ts.
// Parsing is commander's: subcommands, help and errors for free.
import { Command, CommanderError } from "commander";
import { TickqError } from "../index.js";
import { addEnqueueCommand } from "./commands/enqueue.js";
import { addJobChangeCommands } from "./commands/jobs-change.js";
import { addJobReadCommands } from "./commands/jobs-read.js";
import { addJobResultCommand } from "./commands/jobs-result.js";
import { addJobCancelCommand } from "./commands/jobs-cancel.js";
import { addQueueCommands } from "./commands/queues.js";
import { addScheduleCommands } from "./commands/schedules.js";
import { addServerCommands } from "./commands/servers.js";
import { addDevCommand } from "./commands/dev.js";
import { addStatsCommands } from "./commands/stats.js";
import { addWorkflowCommands } from "./commands/workflows.js";
import { addMetricsCommand } from "./commands/metrics.js";
import { addTickCommand } from "./commands/tick.js";
import { addPartitionCommands } from "./commands/partitions.js";
import { EXIT, exitCodeOf } from "./exit.js";
import { endProcess } from "./lifetime.js";
import { printable, printableLines, printError, printJson } from "./output.js";
import { globals } from "./global.js";
import { cliVersion } from "./version.js";

export function buildProgram(): Command {
  const program = new Command("tickq")
    .description("Reliable background jobs for serverless TypeScript on Redis")
    .version(cliVersion())
    .option("--prefix <prefix>", "key prefix (default: TICKQ_PREFIX, else tickq:)")
    .option("--json", "print JSON for scripts instead of tables")
    .option(
      "--partitions <n>",
      'the partitions the keys are laid out in, or "auto" (default: TICKQ_PARTITIONS, else 1; on a cluster, auto)',
    )
    .option("--cluster", "REDIS_URL is a Redis Cluster node, or several comma-separated (default: REDIS_CLUSTER=1)")
    .showHelpAfterError()
    // commander's own messages quote what was typed (an unknown command, a bad option value): printable too.
    .configureOutput({ writeErr: (text) => process.stderr.write(printableLines(text)) })
    .exitOverride()
    // Every command's tickq reads the partition count and the cluster flag where its connection is made (connect.ts).
    .hook("preAction", (_program, action) => {
      const { partitions, cluster } = globals(action);
      if (partitions !== undefined) process.env.TICKQ_PARTITIONS = String(partitions);
      if (cluster) process.env.REDIS_CLUSTER = "1";
    });
  addStatsCommands(program);
  addMetricsCommand(program);
  const jobs = program.command("jobs").description("find, list, retry, delete, run and cancel jobs");
  addJobReadCommands(jobs);
  addJobResultCommand(jobs);
  addJobChangeCommands(jobs);
  addJobCancelCommand(jobs);
  addQueueCommands(program);
  addScheduleCommands(program);
  addWorkflowCommands(program);
  addTickCommand(program);
  addEnqueueCommand(program);
  addServerCommands(program);
  addDevCommand(program);
  addPartitionCommands(program);
  for (const command of [program, ...program.commands, ...jobs.commands]) command.exitOverride();
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : EXIT.OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and --version exit 0; a bad command or option is a usage error (commander printed it)
      return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    }
    const code = exitCodeOf(error);
    const message = error instanceof Error ? error.message : String(error);
    if (argv.includes("--json"))
      printJson({
        error: message,
        code: error instanceof TickqError ? error.code : code === EXIT.USAGE ? "USAGE" : "FAILED",
      });
    // One line: a message may quote a jid or a queue name as Redis holds it.
    printError(`tickq: ${printable(message)}`);
    return code;
  }
}

endProcess(await main(process.argv));
