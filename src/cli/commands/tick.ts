// tickq tick --jobs ./jobs.js [--queues a,b | a:3,b:1] [--budget MS] [--batch N] [--concurrency N] [--drain]
// One tick (or, with --drain, ticks while work remains), with a progress
// line on a terminal while it drains.
import type { Command } from "commander";
import type { QueueOrder, TickReport } from "../../index.js";
import { withTickq } from "../connect.js";
import { UsageError } from "../exit.js";
import { globals, intOption } from "../global.js";
import { loadJobs } from "../load-jobs.js";
import { print, printable, printJson } from "../output.js";

/** "a,b" (strict order) or "a:3,b:1" (weights). */
export function parseQueues(value: string): QueueOrder {
  const parts = value
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new UsageError("--queues names at least one queue");
  if (!parts.some((p) => p.includes(":"))) return parts;
  return parts.map((p) => {
    const [name, weight = "1"] = p.split(":");
    if (!name || !/^\d+(\.\d+)?$/.test(weight)) throw new UsageError(`--queues: "${p}" is not NAME or NAME:WEIGHT`);
    return [name, Number(weight)] as [string, number];
  });
}

const summary = (r: TickReport) =>
  `tick ${printable(r.tickId)}: ${r.succeeded} succeeded, ${r.failed} failed (${r.retried} to retry, ${r.dead} dead), ${r.scheduled} scheduled moved, ` +
  `${r.resurrected} resurrected, ${r.requeued} requeued, ${workflowPart(r)}${r.roundTrips} round trips, ${r.durationMs} ms${r.more ? "; more work waits" : ""}${r.leaseLost ? "; LEASE LOST" : ""}`;

const workflowPart = ({ workflows: w }: TickReport) =>
  w
    ? `workflows: ${w.steps} steps committed, ${w.completed} runs completed, ${w.failed} failed, ${w.parked} parked, ${w.retrying} retrying, ${w.abandoned > 0 ? `${w.abandoned} left past graceMs (their steps run again), ` : ""}${w.lost > 0 ? `${w.lost} whose commit was not stored (their steps run again), ` : ""}`
    : "";

interface TickCliOptions {
  jobs: string;
  queues?: string;
  budget?: string;
  batch?: string;
  concurrency?: string;
  drain?: boolean;
}

export function addTickCommand(program: Command): void {
  program
    .command("tick")
    .description("run one tick (resurrect, schedule, fetch, execute, ack) with the jobs of a module")
    .requiredOption(
      "--jobs <module>",
      "a module exporting `jobs` (name → handler), and optionally `queues`, `schedules`, `ordered` and `workflows`",
    )
    .option(
      "--queues <queues>",
      "queues to serve: a,b (strict) or a:3,b:1 (weighted); default the module's `queues`, else default",
    )
    .option("--budget <ms>", "the tick's time budget", "10000")
    .option("--batch <n>", "jobs per fetch", "50")
    .option("--concurrency <n>", "handlers at once", "10")
    .option("--drain", "tick again while work remains")
    .action(async (options: TickCliOptions, command: Command) => {
      const { prefix, json } = globals(command);
      const loaded = await loadJobs(options.jobs);
      const queues = options.queues ? parseQueues(options.queues) : loaded.queues;
      const tickOptions = {
        budgetMs: intOption(options.budget, "--budget", 0),
        batch: intOption(options.batch, "--batch", 1),
        concurrency: intOption(options.concurrency, "--concurrency", 1),
      };
      await withTickq({ ...loaded, prefix, queues }, async ({ tickq }) => {
        const live = !json && process.stderr.isTTY;
        const seen = { done: 0, failed: 0 };
        if (live) {
          // Counted as handlers finish (events wait for the ack, which comes a batch at a time).
          tickq.use(async (_job, _ctx, next) => {
            try {
              const result = await next();
              seen.done++;
              return result;
            } catch (error) {
              seen.failed++;
              throw error;
            }
          });
        }
        const progress = live
          ? setInterval(() => process.stderr.write(`\r  ${seen.done} done, ${seen.failed} failed…`), 200)
          : undefined;
        const reports: TickReport[] = [];
        try {
          do {
            const report = await tickq.tick(tickOptions);
            reports.push(report);
            if (!json) {
              if (live) process.stderr.write("\r\x1b[K");
              print(summary(report));
            }
          } while (options.drain && reports.at(-1)!.more);
        } finally {
          clearInterval(progress);
        }
        if (json) printJson(options.drain ? reports : reports[0]);
      });
    });
}
