// `tickq dev`'s server: the app and the dashboard over the loaded module, ticking every second
// and on each enqueue (kick), printing each job and step, and started again on the new module
// when a file beside it changes. A reload closes the old server first, so the tick in flight
// finishes on the old code; runs that span the edit go on under the new code by the workflows'
// version rules. A module that fails to load leaves the old server serving.
import { watch } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { format } from "node:util";
import { dashboard } from "../../dashboard/index.js";
import type { QueueOrder } from "../../index.js";
import { type RunningServer, type ServerOptions, startServer } from "../../platforms/node/server.js";
import { type LoadedJobs, loadJobs } from "../load-jobs.js";
import { printJobs, printOutcomes, printSteps } from "./instrument.js";
import type { Lines } from "./lines.js";
import type { LoginLink } from "./login-link.js";

export interface DevServerOptions {
  module: string;
  redisUrl: string;
  prefix: string | undefined;
  port: number;
  /** TICKQ_SECRET; absent only with `server.insecure` (npm start's TICKQ_INSECURE=1). */
  secret: string | undefined;
  queues?: QueueOrder;
  link: LoginLink | undefined;
  out: Lines;
  /** More of startServer's options (npm start's settings from the env: cluster, partitions, kick's fan-out…). */
  server?: Partial<
    Omit<ServerOptions, "jobs" | "workflows" | "ordered" | "schedules" | "routes" | "port" | "redisUrl">
  >;
}

export interface DevServer {
  url: string;
  close(): Promise<void>;
}

const SOURCE = /\.(?:[cm]?[jt]sx?|json)$/;

export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const { out } = options;
  let version = 0;
  let server = await serve(options, await loadJobs(options.module), options.port);
  const port = Number(new URL(server.url).port);
  let queue = Promise.resolve();
  let pending: ReturnType<typeof setTimeout> | undefined;
  const reload = async () => {
    let loaded: LoadedJobs;
    try {
      loaded = await loadJobs(options.module, ++version);
    } catch (error) {
      out.write(
        "fail",
        "✗",
        `reload of ${options.module} failed; still serving the last version`,
        (error as Error).message,
      );
      return;
    }
    await server.close();
    server = await serve(options, loaded, port);
    out.write("info", "↻", `reloaded ${options.module}`, describe(loaded));
  };
  // Editors write a file in several steps (or replace it): one reload for a burst of events.
  const watcher = watch(dirname(resolve(options.module)), (_event, name) => {
    if (name !== null && !SOURCE.test(basename(name))) return;
    clearTimeout(pending);
    pending = setTimeout(() => {
      queue = queue.then(reload);
    }, 150);
  });
  return {
    get url() {
      return server.url;
    },
    async close() {
      watcher.close();
      clearTimeout(pending);
      await queue;
      await server.close();
    },
  };
}

async function serve(options: DevServerOptions, loaded: LoadedJobs, port: number): Promise<RunningServer> {
  const server = await startServer({
    kick: true,
    ...options.server,
    redisUrl: options.redisUrl,
    jobs: loaded.jobs,
    queues: options.queues ?? loaded.queues,
    schedules: loaded.schedules,
    ordered: loaded.ordered,
    workflows: printSteps(loaded.workflows, options.out),
    prefix: options.prefix,
    port,
    secret: options.secret,
    dashboard: dashboard(),
    routes: options.link?.route,
    logger: quietLogger(options.out),
  });
  server.tickq.use(printJobs(options.out));
  printOutcomes(server.tickq, options.out);
  return server;
}

export function describe(loaded: LoadedJobs): string {
  const names = (what: string, record: object | undefined) =>
    record && Object.keys(record).length > 0 ? `${what}: ${Object.keys(record).join(", ")}` : undefined;
  return [
    names("jobs", loaded.jobs),
    names("ordered", loaded.ordered),
    names("schedules", loaded.schedules),
    names("workflows", loaded.workflows),
  ]
    .filter((part) => part !== undefined)
    .join("; ");
}

// Each job run prints its own line (instrument.ts): tickq's line about the same failure would repeat
// it. Warnings about anything else (Redis, a schedule) still print, and so do the lines a job writes
// with ctx.log (`[sendEmail 3f2a…] sent`): tickq writes no info lines of its own.
const JOB_LINE = /^tickq: job /;

function quietLogger(out: Lines) {
  const warn = (message: string, ...rest: unknown[]) => {
    if (!JOB_LINE.test(message)) out.write("fail", "!", format(message, ...rest));
  };
  const info = (message: string, ...rest: unknown[]) => out.write("info", "·", format(message, ...rest));
  return { info, warn, error: warn };
}
