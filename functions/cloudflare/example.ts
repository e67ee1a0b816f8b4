// The example Worker that wrangler.toml deploys: the example jobs, ticked
// every minute by the Cron Trigger and on demand by POST /tick.
import { exampleJobs, exampleQueues } from "../example-jobs.js";
import { tickqWorker } from "./worker.js";

export default tickqWorker({ jobs: exampleJobs, queues: exampleQueues });
