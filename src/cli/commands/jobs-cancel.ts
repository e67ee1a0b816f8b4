// tickq jobs cancel JID: a waiting job cancelled at once, a running one once its tick heard.
// Exit 3 for an unknown jid, 4 for a job that has ended (src/cli/exit.ts).
// tickq jobs cancel --ordered NAME ID: the same for an ordered id (exit 3: nothing waits or runs).
import type { Command } from "commander";
import type { CancelResult, OrderedCancelResult } from "../../index.js";
import { withTickq } from "../connect.js";
import { globals } from "../global.js";
import { print, printable, printJson, terminalJson } from "../output.js";

function sentence(r: CancelResult): string {
  const jid = printable(r.jid);
  if (r.state === "cancelled") return `${jid} cancelled (it was ${r.from})`;
  if (r.heard) return `${jid} cancelling: its tick stopped it (its signal aborted; it never starts if it had not)`;
  return `${jid} cancelling: marked, its tick did not confirm yet (it is recorded cancelled when acked or resurrected)`;
}

function orderedSentence(r: OrderedCancelResult): string {
  const what = `${printable(r.name)} id ${terminalJson(r.id)}`;
  const took = r.payloads > 0 ? `, ${r.payloads} waiting payload(s) with it` : "";
  // The jids its history records have (tickq jobs show JID, tickq jobs list cancelled).
  const kept = r.jids.length > 0 ? `; recorded as ${printable(r.jids.join(", "))}` : "";
  if (r.state === "cancelled") return `${what} cancelled (it was ${r.from}${took})${kept}`;
  if (r.heard) return `${what} cancelling: its tick stopped the run${took}${kept}`;
  return `${what} cancelling: marked, its tick did not confirm yet${took} (recorded cancelled when acked or resurrected)${kept}`;
}

export function addJobCancelCommand(jobs: Command): void {
  jobs
    .command("cancel")
    .description(
      "cancel a queued, scheduled, retry or running job (exit 4 if it has ended); with --ordered NAME, the ordered id ID",
    )
    .argument("<jid>", "the job's jid, or with --ordered the ordered id")
    .option("--ordered <name>", "cancel the ordered id <jid> of this ordered job (exit 3 if nothing waits or runs)")
    .action(async (jid: string, options: { ordered?: string }, command: Command) => {
      const { prefix, json } = globals(command);
      if (options.ordered !== undefined) {
        const name = options.ordered;
        const result = await withTickq({ prefix }, ({ tickq }) => tickq.jobs.cancelOrdered(name, jid));
        if (json) return printJson(result);
        return void print(orderedSentence(result));
      }
      const result = await withTickq({ prefix }, ({ tickq }) => tickq.jobs.cancel(jid));
      if (json) return printJson(result);
      print(sentence(result));
    });
}
