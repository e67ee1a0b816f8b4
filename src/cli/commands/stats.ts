// tickq stats [--history DAYS] · tickq health
import type { Command } from "commander";
import type { Stats } from "../../index.js";
import { withTickq } from "../connect.js";
import { EXIT } from "../exit.js";
import { globals, intOption } from "../global.js";
import { print, printable, printJson, relative, table, when } from "../output.js";

function printStats(stats: Stats, nowMs: number): void {
  const rows: [string, string][] = [
    ["processed", String(stats.processed)],
    ["failed", String(stats.failed)],
    ["scheduled", String(stats.scheduled)],
    ["retry", String(stats.retry)],
    ["dead", `${stats.dead}${stats.deadEvicted ? ` (${stats.deadEvicted} evicted by the caps)` : ""}`],
    ["in process", String(stats.inflight)],
    ["ticks", String(stats.ticks)],
    ["last tick", when(stats.lastTickAt, nowMs)],
    ["eviction", stats.evictionPolicy || "unknown"],
  ];
  print(table(["", ""], rows).split("\n").slice(1).join("\n"));
  const queues = Object.entries(stats.queues).sort(([a], [b]) => a.localeCompare(b));
  if (queues.length > 0) {
    print("");
    print(
      table(
        ["QUEUE", "WAITING", "PAUSED"],
        queues.map(([name, size]) => [name, String(size), stats.paused.includes(name) ? "paused" : ""]),
      ),
    );
  }
  printWarnings(stats.warnings);
}

function printWarnings(warnings: string[]): void {
  if (warnings.length === 0) return;
  print("");
  for (const w of warnings) print(`warning: ${printable(w)}`);
}

export function addStatsCommands(program: Command): void {
  program
    .command("stats")
    .description("counters, sizes, the last tick and warnings; with --history, processed and failed per day")
    .option("--history <days>", "processed and failed for each of the last DAYS days instead")
    .action(async (options: { history?: string }, command: Command) => {
      const { prefix, json } = globals(command);
      const days = intOption(options.history, "--history", 1);
      await withTickq({ prefix }, async ({ tickq }) => {
        if (days !== undefined) {
          const history = await tickq.stats.history(days);
          if (json) return printJson(history);
          print(
            table(
              ["DAY", "PROCESSED", "FAILED"],
              history.map((d) => [d.date, String(d.processed), String(d.failed)]),
            ),
          );
          return;
        }
        const stats = await tickq.stats();
        if (json) return printJson(stats);
        printStats(stats, Date.now());
      });
    });

  program
    .command("health")
    .description(
      `exit 0 when Redis answers and nothing is wrong, ${EXIT.WARNINGS} with warnings (no tick lately while jobs wait…), ${EXIT.FAILED} when Redis does not answer`,
    )
    .action(async (_options: unknown, command: Command) => {
      const { prefix, json } = globals(command);
      const stats = await withTickq({ prefix }, ({ tickq }) => tickq.stats());
      const ok = stats.warnings.length === 0;
      if (json) printJson({ ok, lastTickAt: stats.lastTickAt, warnings: stats.warnings });
      else {
        print(ok ? "ok" : "warnings");
        print(`last tick: ${stats.lastTickAt === null ? "never" : relative(stats.lastTickAt, Date.now())}`);
        printWarnings(stats.warnings);
      }
      if (!ok) process.exitCode = EXIT.WARNINGS;
    });
}
