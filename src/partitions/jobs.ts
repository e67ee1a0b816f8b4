// tq.jobs and tq.queues over partitions. A jid is looked for in the
// partition it hashes to first (where the partition's own enqueue put it),
// then in the others: a caller's jid routed by a flow key, a recurring
// job's jid, a job moved by migratePartitions.
import { TickqError } from "../errors.js";
import type { JobInfo, JobsApi, QueuesApi } from "../admin/types.js";
import { pageAcross } from "./cursor.js";
import { partitionOf } from "./layout.js";
import { partitionOfOrdered } from "./route.js";
import { mergeQueues } from "./merge.js";

const DEFAULT_LIMIT = 25;

async function locate(all: JobsApi[], jid: string): Promise<{ at: number; job: JobInfo } | null> {
  const first = partitionOf(jid, all.length);
  const found = await all[first]!.find(jid);
  if (found) return { at: first, job: found };
  const others = await Promise.all(all.map((api, k) => (k === first ? null : api.find(jid))));
  const at = others.findIndex((job) => job !== null);
  return at < 0 ? null : { at, job: others[at]! };
}

/** Runs `act` on the partition that holds the jid: its own partition first, then wherever find sees it. */
async function onHolder<T>(all: JobsApi[], jid: string, act: (api: JobsApi) => Promise<T>): Promise<T> {
  const first = partitionOf(jid, all.length);
  try {
    return await act(all[first]!);
  } catch (error) {
    if (!(error instanceof TickqError) || error.code !== "NOT_FOUND") throw error;
    const found = await locate(all, jid);
    if (!found || found.at === first) throw error;
    return act(all[found.at]!);
  }
}

const sum = async (counts: Promise<number>[]) => (await Promise.all(counts)).reduce((a, b) => a + b, 0);

export function partitionedJobs(all: JobsApi[]): JobsApi {
  return {
    find: async (jid) => (await locate(all, jid))?.job ?? null,
    async list(state, options = {}) {
      const limit = options.limit ?? DEFAULT_LIMIT;
      const page = await pageAcross(all.length, options.cursor, limit, async (k, inner, left) => {
        const p = await all[k]!.list(state, { ...options, cursor: inner ?? null, limit: left });
        return { items: p.jobs, next: p.cursor ?? undefined };
      });
      return { jobs: page.items, cursor: page.cursor ?? null };
    },
    retry: (jid) => onHolder(all, jid, (api) => api.retry(jid)),
    retryAll: (state, options) => sum(all.map((api) => api.retryAll(state, options))),
    delete: (jid) => onHolder(all, jid, (api) => api.delete(jid)),
    deleteAll: (state, options) => sum(all.map((api) => api.deleteAll(state, options))),
    runNow: (jid) => onHolder(all, jid, (api) => api.runNow(jid)),
    cancel: (jid) => onHolder(all, jid, (api) => api.cancel(jid)),
    // An ordered id lives where its name and id route it; the holder checks the arguments.
    cancelOrdered: (name, id) => all[partitionOfOrdered(String(name), String(id), all.length)]!.cancelOrdered(name, id),
    async result(jid) {
      const first = partitionOf(jid, all.length);
      const result = await all[first]!.result(jid);
      if (result.state !== "unknown") return result;
      const found = await locate(all, jid);
      return found && found.at !== first ? all[found.at]!.result(jid) : result;
    },
  };
}

export function partitionedQueues(all: QueuesApi[]): QueuesApi {
  return {
    list: async () => mergeQueues(await Promise.all(all.map((api) => api.list()))),
    pause: async (name) => void (await Promise.all(all.map((api) => api.pause(name)))),
    resume: async (name) => void (await Promise.all(all.map((api) => api.resume(name)))),
  };
}
