// tq.workflows over partitions. A run lives in the partition of its id (its
// memo, its lease and its fence in one slot). sendEvent goes to every
// partition: a run waits under (event, match) in its own partition, and
// routing events by (event, match) would need runs to move; the count adds up.
import { newJid } from "../job/codec.js";
import type { TickqRuntime as Runtime } from "../runtime.js";
import { checkNewId, prepareBulk, recordEvent } from "../workflows/client.js";
import { createFork, readForkSource } from "../workflows/fork.js";
import { triggeredStarts } from "../workflows/triggers.js";
import type { WorkflowCheck, WorkflowInputs, WorkflowsApi } from "../workflows/types.js";
import { decodeCursor, encodeCursor, pageAcross } from "./cursor.js";
import { partitionOf } from "./layout.js";

/** `cores`: each partition's runtime, in order (a fork reads its source in one partition and writes the new run in another). */
export function partitionedWorkflows<W extends WorkflowInputs>(
  all: WorkflowsApi<W>[],
  cores: readonly Runtime[],
): WorkflowsApi<W> {
  const at = (runId: string) => all[partitionOf(String(runId), all.length)]!;
  const runtimeOf = (runId: string) => cores[partitionOf(String(runId), all.length)]!;
  const start: WorkflowsApi<W>["start"] = (name, input, options) => {
    // A fresh id is drawn here, so the run's partition is known before it exists.
    const id = options?.id ?? newJid();
    return at(id).start(name, input, { ...options, id });
  };
  return {
    start,
    // A fresh id is drawn here, so the run's partition is known before it exists.
    startAndWait: (name, input, options) => {
      const id = options?.id ?? newJid();
      return at(id).startAndWait(name, input, { ...options, id });
    },
    // Every run is checked (and its id drawn) before any partition is called; then one call a partition.
    async startBulk(runs, options) {
      const ids = prepareBulk(cores[0]!, runs).map((p) => p.id);
      const groups = new Map<number, number[]>();
      ids.forEach((id, k) => {
        const part = partitionOf(id, all.length);
        const group = groups.get(part);
        if (group) group.push(k);
        else groups.set(part, [k]);
      });
      await Promise.all(
        [...groups].map(([part, at]) =>
          all[part]!.startBulk(
            at.map((k) => ({ ...runs[k]!, id: ids[k]! })),
            options,
          ),
        ),
      );
      return ids;
    },
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
    retry: (runId) => at(runId).retry(runId),
    async fork(runId, options) {
      // A fresh id is drawn here, so the new run's partition is known before it exists.
      const id = options?.id ?? newJid();
      if (partitionOf(String(runId), all.length) === partitionOf(String(id), all.length)) {
        return at(runId).fork(runId, { ...options, id });
      }
      const source = await readForkSource(runtimeOf(runId), runId, options);
      return createFork(runtimeOf(id), source, checkNewId(id, "workflows.fork: id"), options.input);
    },
    async retryAll(options) {
      const counts = await Promise.all(all.map((api) => api.retryAll(options)));
      return { retried: counts.reduce((a, c) => a + c.retried, 0) };
    },
    async check(options = {}) {
      // Partition after partition, each from its own cursor, until `limit` runs are checked.
      const limit = options.limit ?? 1_000;
      let { partition, inner } = decodeCursor(options.cursor, all.length);
      const answer: WorkflowCheck = { checked: 0, incompatible: [] };
      for (;;) {
        const part = await all[partition]!.check({ ...options, cursor: inner, limit: limit - answer.checked });
        answer.checked += part.checked;
        answer.incompatible.push(...part.incompatible);
        if (part.cursor !== undefined) return { ...answer, cursor: encodeCursor(partition, part.cursor) };
        if (++partition >= all.length) return answer;
        inner = undefined;
        if (answer.checked >= limit) return { ...answer, cursor: encodeCursor(partition, undefined) };
      }
    },
    async list(options = {}) {
      const page = await pageAcross(all.length, options.cursor, options.limit ?? 50, async (k, inner, left) => {
        const p = await all[k]!.list({ ...options, cursor: inner, limit: left });
        return { items: p.runs, next: p.cursor };
      });
      return page.cursor === undefined ? { runs: page.items } : { runs: page.items, cursor: page.cursor };
    },
  };
}
