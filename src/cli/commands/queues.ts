// tickq queues list · tickq queues pause NAME · tickq queues resume NAME
// A name no queue has is refused (exit 3) unless --new says it is meant: a
// typo must not "pause" nothing and exit 0.
import type { Command } from "commander";
import { TickqError, type JobRegistry, type Tickq } from "../../index.js";
import { withTickq } from "../connect.js";
import { globals } from "../global.js";
import { print, printable, printJson, table, when } from "../output.js";

export function addQueueCommands(program: Command): void {
  const queues = program.command("queues").description("list, pause and resume queues");
  queues
    .command("list")
    .description("every queue: jobs waiting, paused, last served by a tick")
    .action(async (_options: unknown, command: Command) => {
      const { prefix, json } = globals(command);
      const list = await withTickq({ prefix }, ({ tickq }) => tickq.queues.list());
      if (json) return printJson(list);
      if (list.length === 0) return print("no queues");
      const now = Date.now();
      print(
        table(
          ["QUEUE", "WAITING", "PAUSED", "LAST SERVED"],
          list.map((q) => [q.name, String(q.size), q.paused ? "paused" : "", when(q.lastServedAt, now)]),
        ),
      );
    });
  for (const verb of ["pause", "resume"] as const) {
    queues
      .command(verb)
      .description(
        verb === "pause" ? "ticks stop fetching from the queue; its jobs stay" : "ticks fetch from the queue again",
      )
      .argument("<name>")
      .option("--new", `${verb} a queue that has had no job yet`)
      .action(async (name: string, options: { new?: boolean }, command: Command) => {
        const { prefix, json } = globals(command);
        await withTickq({ prefix }, async ({ tickq }) => {
          if (!options.new) await mustExist(tickq, name, verb);
          await (verb === "pause" ? tickq.queues.pause(name) : tickq.queues.resume(name));
        });
        if (json) return printJson({ queue: name, paused: verb === "pause" });
        print(`queue ${printable(name)} ${verb === "pause" ? "paused" : "resumed"}`);
      });
  }
}

async function mustExist(tickq: Tickq<JobRegistry>, name: string, verb: string): Promise<void> {
  const names = (await tickq.queues.list()).map((q) => q.name);
  if (names.includes(name)) return;
  const known = names.length > 0 ? names.join(", ") : "none yet";
  throw new TickqError(
    "NOT_FOUND",
    `no queue named "${name}" (queues: ${known}); to ${verb} it before its first job, add --new`,
  );
}
