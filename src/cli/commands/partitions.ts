// tickq partitions migrate --partitions N|auto [--from PREFIX]: moves the jobs of a
// one-partition layout into N partitions (migratePartitions), then prints
// what moved and what is left for the old deployment to finish.
import type { Command } from "commander";
import { migratePartitions } from "../../index.js";
import { connect } from "../connect.js";
import { UsageError } from "../exit.js";
import { globals, intOption } from "../global.js";
import { printJson } from "../output.js";

export function addPartitionCommands(program: Command): void {
  const partitions = program.command("partitions").description("spread the keys over partitions (Redis Cluster)");
  partitions
    .command("migrate")
    .description("move queued, scheduled, retry and dead jobs from the one-partition layout into --partitions N")
    .option(
      "--from <prefix>",
      "the one-partition layout's prefix (default: --prefix; on a cluster the tagged one, e.g. {tq}:)",
    )
    .option("--batch <n>", "jobs per page (default 500)")
    .action(async (options: { from?: string; batch?: string }, command: Command) => {
      const { prefix, json, partitions: count } = globals(command);
      if (count === undefined || (count !== "auto" && count < 2))
        throw new UsageError(
          'partitions migrate needs --partitions N (or TICKQ_PARTITIONS), N of 2 or more, or "auto" on a cluster',
        );
      const connection = await connect();
      try {
        const report = await migratePartitions({
          redis: connection.adapter,
          prefix,
          from: options.from ?? prefix,
          partitions: count,
          batch: intOption(options.batch, "--batch", 1),
          logger: { info: console.error, warn: console.error, error: console.error },
        });
        if (json) return printJson(report);
        const { moved, left } = report;
        console.log(
          `moved ${moved.queued} queued, ${moved.scheduled} scheduled, ${moved.retry} retry, ${moved.dead} dead into ${report.partitions} partitions`,
        );
        if (left.length > 0) console.log(`left in the old layout: ${left.join(", ")}`);
      } finally {
        await connection.close();
      }
    });
}
