// tickq queues list · tickq queues pause NAME · tickq queues resume NAME
import type { Command } from "commander";
import { withTickq } from "../connect.js";
import { globals } from "../global.js";
import { printJson, table, when } from "../output.js";

export function addQueueCommands(program: Command): void {
  const queues = program.command("queues").description("list, pause and resume queues");
  queues
    .command("list")
    .description("every queue: jobs waiting, paused, last served by a tick")
    .action(async (_options: unknown, command: Command) => {
      const { prefix, json } = globals(command);
      const list = await withTickq({ prefix }, ({ tickq }) => tickq.queues.list());
      if (json) return printJson(list);
      if (list.length === 0) return console.log("no queues");
      const now = Date.now();
      console.log(table(["QUEUE", "WAITING", "PAUSED", "LAST SERVED"], list.map((q) => [q.name, String(q.size), q.paused ? "paused" : "", when(q.lastServedAt, now)])));
    });
  for (const verb of ["pause", "resume"] as const) {
    queues
      .command(verb)
      .description(verb === "pause" ? "ticks stop fetching from the queue; its jobs stay" : "ticks fetch from the queue again")
      .argument("<name>")
      .action(async (name: string, _options: unknown, command: Command) => {
        const { prefix, json } = globals(command);
        await withTickq({ prefix }, ({ tickq }) => (verb === "pause" ? tickq.queues.pause(name) : tickq.queues.resume(name)));
        if (json) return printJson({ queue: name, paused: verb === "pause" });
        console.log(`queue ${name} ${verb === "pause" ? "paused" : "resumed"}`);
      });
  }
}
