// tq.workflows over partitions. A run lives in the partition of its id (its
// memo, its lease and its fence in one slot). sendEvent goes to every
// partition: a run waits under (event, match) in its own partition, and
// routing events by (event, match) would need runs to move; the count adds up.
import { newJid } from "../job/codec.js";
import type { WorkflowInputs, WorkflowsApi } from "../workflows/types.js";
import { pageAcross } from "./cursor.js";
import { partitionOf } from "./layout.js";

export function partitionedWorkflows<W extends WorkflowInputs>(all: WorkflowsApi<W>[]): WorkflowsApi<W> {
  const at = (runId: string) => all[partitionOf(String(runId), all.length)]!;
  return {
    start(name, input, options) {
      // A fresh id is drawn here, so the run's partition is known before it exists.
      const id = options?.id ?? newJid();
      return at(id).start(name, input, { ...options, id });
    },
    async sendEvent(event, options) {
      const counts = await Promise.all(all.map((api) => api.sendEvent(event, options)));
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
