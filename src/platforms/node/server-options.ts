// startServer's options, and how they split into the server's own and the ones it hands to createTickq,
// so every createTickq option (workflows, keepCompleted, telemetry…) reaches the tickq without being
// listed twice.
import type { Hono } from "hono";
import type { Dashboard } from "../../http/dashboard-slot.js";
import type { TickqEnv } from "../../http/app.js";
import type {
  JobRegistry,
  KickOptions,
  OrderedRegistry,
  TickqOptions,
  TickOptions,
  TickReport,
  WorkflowInputs,
} from "../../index.js";

/**
 * Options of `startServer`: every option of `createTickq` but `redis` (workflows, ordered jobs, schedules,
 * keepCompleted, telemetry…), plus the server's own.
 */
export interface ServerOptions<W extends WorkflowInputs = WorkflowInputs>
  extends Omit<TickqOptions<JobRegistry, OrderedRegistry, W>, "redis" | "kick" | "redisTimeoutMs"> {
  /** The Redis to use (`redis://…`), e.g. from `findRedis()`. */
  redisUrl: string;
  /** The jobs this server can run, as createTickq's `jobs`. */
  jobs: JobRegistry;
  /** Recurring jobs, as createTickq's `schedules` (docs/guides/recurring.md). */
  schedules?: TickqOptions["schedules"];
  /** `redisUrl` names a Redis Cluster's node, or several comma-separated (REDIS_CLUSTER=1); default false. */
  cluster?: boolean;
  /** The port to listen on (127.0.0.1); default 3000, 0 for any free one. */
  port?: number;
  /** Opens every route and the dashboard (TICKQ_SECRET): 16 characters or more. */
  secret?: string;
  /** Only reads: GET routes (TICKQ_READ_SECRET). */
  readSecret?: string;
  /** Only scrapes GET /metrics (TICKQ_METRICS_SECRET). */
  metricsSecret?: string;
  /** Only starts ticks: /tick (CRON_SECRET). */
  tickSecret?: string;
  /** Serve without a secret: local development only (loopback Host values only). */
  insecure?: boolean;
  /**
   * The server's public URL for fan-out, e.g. behind a load balancer (TICKQ_PUBLIC_URL); default the
   * address it listens on. Never taken from a request.
   */
  publicUrl?: string;
  /** Milliseconds between ticks; 0 turns the loop off. */
  tickEveryMs?: number;
  /** Options of every tick the server runs; default budget 5,000 ms. */
  tick?: TickOptions;
  /** Called with each loop tick's report. */
  onTick?: (report: TickReport) => void;
  /** true: enqueues (POST /jobs, server.tickq, c.var.tq) kick a tick at once; an object also sets how kicked ticks run. */
  kick?: boolean | KickOptions;
  /** Fan-out: up to this many ticks live at once, started through the server's own /tick; default off. */
  maxParallel?: number;
  /** Your own routes on the app, before auth, with `c.var.tq`. */
  routes?: (app: Hono<TickqEnv>) => void;
  /** The web dashboard at /dashboard: `dashboard()` from "tickq/dashboard"; default none. */
  dashboard?: Dashboard;
  /** A Redis call slower than this fails; default 2,000 ms (a request answers 503 that soon when Redis is down). */
  redisTimeoutMs?: number;
}

type ServerOnlyKey = Exclude<keyof ServerOptions, keyof TickqOptions> | "kick" | "redisTimeoutMs";

// A Record over the type's keys: a server option added without a line here fails the type check.
const SERVER_ONLY: Readonly<Record<ServerOnlyKey, true>> = {
  redisUrl: true,
  cluster: true,
  port: true,
  secret: true,
  readSecret: true,
  metricsSecret: true,
  tickSecret: true,
  insecure: true,
  publicUrl: true,
  tickEveryMs: true,
  tick: true,
  onTick: true,
  kick: true,
  maxParallel: true,
  routes: true,
  dashboard: true,
  redisTimeoutMs: true,
};

/** The options createTickq takes, without `redis` (the server connects it): createTickq refuses an unknown key. */
export function tickqOptionsOf<W extends WorkflowInputs>(
  options: ServerOptions<W>,
): Omit<TickqOptions<JobRegistry, OrderedRegistry, W>, "redis"> {
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(options)) {
    if (!Object.hasOwn(SERVER_ONLY, key)) rest[key] = (options as unknown as Record<string, unknown>)[key];
  }
  return rest as unknown as Omit<TickqOptions<JobRegistry, OrderedRegistry, W>, "redis">;
}
