// tickq jobs cancel JID: a waiting job cancelled at once, a running one once its tick heard.
// Exit 3 for an unknown jid, 4 for a job that has ended (src/cli/exit.ts).
import type { Command } from "commander";
import type { CancelResult } from "../../index.js";
import { withTickq } from "../connect.js";
import { globals } from "../global.js";
import { printJson } from "../output.js";

function sentence(r: CancelResult): string {
  if (r.state === "cancelled") return `${r.jid} cancelled (it was ${r.from})`;
  if (r.heard) return `${r.jid} cancelling: its tick stopped it (its signal aborted; it never starts if it had not)`;
  return `${r.jid} cancelling: marked, its tick did not confirm yet (it is recorded cancelled when acked or resurrected)`;
}

export function addJobCancelCommand(jobs: Command): void {
  jobs
    .command("cancel")
    .description("cancel a queued, scheduled, retry or running job (exit 4 if it has ended)")
    .argument("<jid>")
    .action(async (jid: string, _options: unknown, command: Command) => {
      const { prefix, json } = globals(command);
      const result = await withTickq({ prefix }, ({ tickq }) => tickq.jobs.cancel(jid));
      if (json) return printJson(result);
      console.log(sentence(result));
    });
}
