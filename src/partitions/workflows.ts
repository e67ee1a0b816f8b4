// tq.workflows over partitions. A run lives in the partition of its id (its
// memo, its lease and its fence in one slot). sendEvent goes to every
// partition: a run waits under (event, match) in its own partition, and
// routing events by (event, match) would need runs to move; the count adds up.
import { newJid } from "../job/codec.js";
import type { TickqRuntime as Runtime } from "../runtime.js";
import { recordEvent } from "../workflows/client.js";
import { triggeredStarts } from "../workflows/triggers.js";
import type { WorkflowInputs, WorkflowsApi } from "../workflows/types.js";
import { pageAcross } from "./cursor.js";
import { partitionOf } from "./layout.js";

export function partitionedWorkflows<W extends WorkflowInputs>(
  all: WorkflowsApi<W>[],
  cores: readonly Runtime[],
): WorkflowsApi<W> {
  const at = (runId: string) => all[partitionOf(String(runId), all.length)]!;
  const start: WorkflowsApi<W>["start"] = (name, input, options) => {
    // A fresh id is drawn here, so the run's partition is known before it exists.
    const id = options?.id ?? newJid();
    return at(id).start(name, input, { ...options, id });
  };
  return {
    start,
    // Recorded in every partition; a run it triggers starts once, in the partition of its id.
    async sendEvent(event, options) {
      const counts = await Promise.all(cores.map((runtime) => recordEvent(runtime, event, options)));
      const data = options?.data ?? null;
      for (const run of triggeredStarts(cores[0]!.workflows, event, data, options?.id))
        await start(
          run.name as keyof W & string,
          data as W[keyof W & string],
          run.id === undefined ? {} : { id: run.id },
        );
      return counts.reduce((a, b) => a + b, 0);
    },
    get: (runId) => at(runId).get(runId),
    result: (runId, options) => at(runId).result(runId, options),
    cancel: (runId) => at(runId).cancel(runId),
    async list(options = {}) {
      const page = await pageAcross(all.length, options.cursor, options.limit ?? 50, async (k, inner, left) => {
        const p = await all[k]!.list({ ...options, cursor: inner, limit: left });
        return { items: p.runs, next: p.cursor };
      });
      return page.cursor === undefined ? { runs: page.items } : { runs: page.items, cursor: page.cursor };
    },
  };
}
