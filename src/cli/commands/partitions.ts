// tickq partitions migrate --partitions M|auto [--from-partitions N] [--from PREFIX] [--to PREFIX] [--jobs MODULE] [--leave]:
// moves the jobs of a layout in N partitions (default: the count stored) into M
// (migratePartitions), then prints what moved and what is left in the old layout
// (with --leave: ordered ids, workflow runs and running jobs it does not move).
import type { Command } from "commander";
import { migratePartitions } from "../../index.js";
import { connect } from "../connect.js";
import { UsageError } from "../exit.js";
import { loadJobs } from "../load-jobs.js";
import { globals, intOption } from "../global.js";
import { print, printable, printError, printJson } from "../output.js";

export function addPartitionCommands(program: Command): void {
  const partitions = program.command("partitions").description("spread the keys over partitions (Redis Cluster)");
  partitions
    .command("migrate")
    .description(
      "move queued, scheduled, retry and dead jobs (and ordered jobs' dead entries) from the layout in N partitions into --partitions M",
    )
    .option("--from-partitions <n>", "the count to move from (default: the one stored for --prefix, else 1)")
    .option(
      "--from <prefix>",
      "moving from one partition: its prefix (default: --prefix; on a cluster the tagged one, e.g. {tq}:)",
    )
    .option("--to <prefix>", "moving to one partition: its prefix (default: --prefix; on a cluster a tagged one)")
    .option("--batch <n>", "jobs per page (default 500)")
    .option(
      "--jobs <module>",
      "the deployment's jobs module: its jobs go where their flow or debounce key sends them (default: flow jobs by the key they carry)",
    )
    .option(
      "--leave",
      "move the jobs though the old layout still holds ordered ids, workflow runs or running jobs: they stay there, unrun (default: refused)",
    )
    .action(
      async (
        options: {
          fromPartitions?: string;
          from?: string;
          to?: string;
          batch?: string;
          jobs?: string;
          leave?: boolean;
        },
        command: Command,
      ) => {
        const { prefix, json, partitions: count } = globals(command);
        if (count === undefined)
          throw new UsageError('partitions migrate needs --partitions M (or TICKQ_PARTITIONS), or "auto" on a cluster');
        const jobs = options.jobs === undefined ? undefined : (await loadJobs(options.jobs)).jobs;
        const connection = await connect();
        try {
          const report = await migratePartitions({
            redis: connection.adapter,
            prefix,
            partitions: count,
            ...(options.fromPartitions === undefined
              ? {}
              : { fromPartitions: intOption(options.fromPartitions, "--from-partitions", 1)! }),
            ...(options.from === undefined ? {} : { from: options.from }),
            ...(options.to === undefined ? {} : { to: options.to }),
            batch: intOption(options.batch, "--batch", 1),
            ...(jobs === undefined ? {} : { jobs }),
            ...(options.leave ? { leave: true } : {}),
            logger: { info: printError, warn: printError, error: printError },
          });
          if (json) return printJson(report);
          const { moved, left } = report;
          print(
            `moved ${moved.queued} queued, ${moved.scheduled} scheduled, ${moved.retry} retry, ${moved.dead} dead` +
              `${moved.orderedDead > 0 ? `, ${moved.orderedDead} dead ordered entries` : ""} ` +
              `from ${report.fromPartitions} into ${report.partitions} partitions; ${report.stayed} stayed in place`,
          );
          if (left.length > 0) print(`left in the old layout: ${printable(left.join(", "))}`);
        } finally {
          await connection.close();
        }
      },
    );
}
