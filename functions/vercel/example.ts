// The example Vercel Function (api/index.ts re-exports it), with the
// dashboard at /api/dashboard.
import { dashboard } from "../../src/dashboard/index.js";
import { exampleJobs, exampleQueues } from "../../src/platforms/node/example-jobs.js";
import { tickqVercel } from "../../src/platforms/vercel/handler.js";

export const { GET, POST } = tickqVercel({ jobs: exampleJobs, queues: exampleQueues, dashboard: dashboard() });
