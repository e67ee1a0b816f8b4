// The jobs API (tq.jobs, tq.queues): find, list, retry, delete, run now,
// pause. Every state change is one Lua script, atomic with any tick; reads
// look through bounded stretches, never a whole set at once.
import type { Runtime } from "../tick/runtime.js";
import { deleteAllJobs } from "./delete-all.js";
import { deleteJob } from "./delete.js";
import { findJob } from "./find.js";
import { listJobs } from "./list.js";
import { setPaused } from "./pause.js";
import { listQueues } from "./queue-list.js";
import { retryAllJobs } from "./retry-all.js";
import { retryJob } from "./retry.js";
import { runJobNow } from "./run-now.js";
import { readResult } from "../results/read.js";
import { cancelJob } from "../cancel/cancel.js";
import { cancelOrdered } from "../cancel/ordered.js";
import type { JobsApi, QueuesApi } from "./types.js";

export function jobsApi(runtime: Runtime): JobsApi {
  return {
    find: (jid) => findJob(runtime, jid),
    list: (state, options) => listJobs(runtime, state, options),
    retry: (jid) => retryJob(runtime, jid),
    retryAll: (state, options) => retryAllJobs(runtime, state, options),
    delete: (jid) => deleteJob(runtime, jid),
    deleteAll: (state, options) => deleteAllJobs(runtime, state, options),
    runNow: (jid) => runJobNow(runtime, jid),
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
