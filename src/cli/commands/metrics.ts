// tickq metrics [--hours N] [--name NAME] [--queue QUEUE]: runs, failures and
// run times per job name, waits and latency per queue, waits per ordered job, over the last
// hours, from tq.metrics.query().
import type { Command } from "commander";
import type { MetricsResult } from "../../index.js";
import { withTickq } from "../connect.js";
import { globals, intOption } from "../global.js";
import { print, printJson, table } from "../output.js";

const ms = (value: number | null) =>
  value === null ? "-" : value >= 100 ? String(Math.round(value)) : value.toFixed(1);

function printMetrics(result: MetricsResult, hours: number): void {
  print(`last ${hours} h (Redis' clock, ${new Date(result.sinceMs).toISOString().slice(0, 16)}Z on)`);
  print("");
  print(
    table(
      ["JOB", "RUNS", "FAILED", "P50 MS", "P95 MS", "P99 MS"],
      result.jobs.map((s) => [
        s.name,
        String(s.total.runs),
        String(s.total.failures),
        ms(s.total.p50),
        ms(s.total.p95),
        ms(s.total.p99),
      ]),
    ),
  );
  print("");
  print(
    table(
      ["QUEUE", "LATENCY MS", "RAN", "WAIT P50 MS", "WAIT P95 MS", "WAIT P99 MS"],
      result.queues.map((q) => [
        q.queue,
        String(Math.round(q.latencyMs)),
        String(q.total.waits),
        ms(q.total.p50),
        ms(q.total.p95),
        ms(q.total.p99),
      ]),
    ),
  );
  if (result.ordered.length === 0) return;
  print("");
  print(
    table(
      ["ORDERED", "RAN", "WAIT P50 MS", "WAIT P95 MS", "WAIT P99 MS"],
      result.ordered.map((o) => [o.name, String(o.total.waits), ms(o.total.p50), ms(o.total.p95), ms(o.total.p99)]),
    ),
  );
}

export function addMetricsCommand(program: Command): void {
  program
    .command("metrics")
    .description(
      "runs, failures and p50/p95/p99 run times per job name, waits and latency per queue, over the last hours",
    )
    .option("--hours <n>", "how many hours back (default 1, at most 168)")
    .option("--name <name>", "only this job name")
    .option("--queue <queue>", "only this queue")
    .action(async (options: { hours?: string; name?: string; queue?: string }, command: Command) => {
      const { prefix, json } = globals(command);
      const hours = intOption(options.hours, "--hours", 1) ?? 1;
      await withTickq({ prefix }, async ({ tickq }) => {
        // Whole minutes, the current one last: exactly `hours` of them.
        const untilMs = (Math.floor(Date.now() / 60_000) + 1) * 60_000;
        const result = await tickq.metrics.query({
          sinceMs: untilMs - hours * 3600_000,
          untilMs,
          stepMs: hours * 3600_000,
          ...(options.name ? { name: options.name } : {}),
          ...(options.queue ? { queue: options.queue } : {}),
        });
        if (json) return printJson(result);
        printMetrics(result, hours);
      });
    });
}
