// The example Vercel Function (api/index.ts re-exports it).
import { exampleJobs, exampleQueues } from "../example-jobs.js";
import { tickqVercel } from "./handler.js";

export const { GET, POST } = tickqVercel({ jobs: exampleJobs, queues: exampleQueues });
