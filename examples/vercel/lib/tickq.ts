// The project's tickq, shared by its functions: api/tickq.ts serves it and
// api/signup.ts enqueues through it. Each function is its own bundle, so each
// knows the jobs and can run a kicked tick itself.
import { dashboard } from "tickq/dashboard";
import { tickqVercel } from "tickq/vercel";
import { jobs } from "./jobs.js";

/** Mounted at /api/tickq (vercel.json sends /api/tickq/* here): /tick, /jobs, /stats, /health, /dashboard. */
export const tickqApp = tickqVercel({ jobs, dashboard: dashboard(), basePath: "/api/tickq" });
