// `--jobs ./jobs.js`: the module that registers the job handlers, for the
// commands that run or check jobs (tick, serve, enqueue). It exports them
// as `jobs` (or as its default export), and may export `queues` and
// `schedules` (recurring jobs) too:
//   export const jobs = { sendEmail: async ([to]) => { … } };
//   export const queues = ["critical", "default"];
//   export const schedules = { nightly: { cron: "0 3 * * *", job: "sendEmail", args: ["ops@x.y"] } };
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { JobRegistry, QueueOrder, Schedules } from "../index.js";
import { UsageError } from "./exit.js";

export interface LoadedJobs {
  jobs: JobRegistry;
  queues?: QueueOrder;
  schedules?: Schedules;
}

const isRegistry = (value: unknown): value is JobRegistry =>
  typeof value === "object" &&
  value !== null &&
  Object.values(value).every(
    (v) =>
      typeof v === "function" ||
      (typeof v === "object" && v !== null && typeof (v as { perform?: unknown }).perform === "function"),
  );

export async function loadJobs(path: string): Promise<LoadedJobs> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(
      `--jobs ${path}: cannot import it (${(error as Error).message}). Give a JavaScript module (or run through tsx for TypeScript).`,
    );
  }
  const jobs = module.jobs ?? module.default;
  if (!isRegistry(jobs)) {
    throw new UsageError(
      `--jobs ${path}: export \`jobs\` (or a default export): an object of job name → handler, or → { perform, queue?, retry? }`,
    );
  }
  // createTickq checks both and names what is wrong.
  return {
    jobs,
    queues: module.queues as QueueOrder | undefined,
    schedules: module.schedules as Schedules | undefined,
  };
}
