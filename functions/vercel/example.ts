// The example Vercel Function (api/index.ts re-exports it), with the
// dashboard at /api/dashboard.
import { dashboard } from "../dashboard/index.js";
import { exampleJobs, exampleQueues } from "../example-jobs.js";
import { tickqVercel } from "./handler.js";

export const { GET, POST } = tickqVercel({ jobs: exampleJobs, queues: exampleQueues, dashboard: dashboard() });
