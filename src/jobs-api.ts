// The jobs API (tq.jobs, tq.queues) composed: find, list, retry, delete, run
// now and pause (admin/), a job's result (admin/result.ts over results/) and
// cancel (cancel/, which reads jobs through admin/). Every state change is one
// Lua script, atomic with any tick; reads look through bounded stretches.
import type { Runtime } from "./tick/runtime.js";
import { deleteAllJobs } from "./admin/delete-all.js";
import { deleteJob } from "./admin/delete.js";
import { findJob } from "./admin/find.js";
import { listJobs } from "./admin/list.js";
import { setPaused } from "./admin/pause.js";
import { listQueues } from "./admin/queue-list.js";
import { retryAllJobs } from "./admin/retry-all.js";
import { retryJob } from "./admin/retry.js";
import { runJobNow } from "./admin/run-now.js";
import { readResult } from "./admin/result.js";
import { withRetries } from "./admin/retries.js";
import { cancelJob } from "./cancel/cancel.js";
import { cancelOrdered } from "./ordered/cancel.js";
import type { JobsApi, QueuesApi } from "./admin/types.js";

export function jobsApi(runtime: Runtime): JobsApi {
  return {
    find: async (jid) => withRetries(runtime, await findJob(runtime, jid)),
    list: async (state, options) => {
      const page = await listJobs(runtime, state, options);
      for (const info of page.jobs) withRetries(runtime, info);
      return page;
    },
    retry: async (jid) => withRetries(runtime, await retryJob(runtime, jid)),
    retryAll: (state, options) => retryAllJobs(runtime, state, options),
    delete: async (jid) => withRetries(runtime, await deleteJob(runtime, jid)),
    deleteAll: (state, options) => deleteAllJobs(runtime, state, options),
    runNow: async (jid) => withRetries(runtime, await runJobNow(runtime, jid)),
    result: (jid) => readResult(runtime, jid),
    cancel: (jid) => cancelJob(runtime, jid),
    cancelOrdered: (name, id) => cancelOrdered(runtime, name, id),
  };
}

export function queuesApi(runtime: Runtime): QueuesApi {
  return {
    list: () => listQueues(runtime),
    pause: (name) => setPaused(runtime, name, true),
    resume: (name) => setPaused(runtime, name, false),
  };
}
