// The Node server: the shared app on @hono/node-server, plus a tick every
// second (skipped while the previous one still runs). Kicked ticks and
// fan-out run in-process; close() waits for them.
import type { Hono } from "hono";
import {
  createTickq,
  type JobRegistry,
  type KickOptions,
  type OrderedRegistry,
  type Tickq,
  type TickqOptions,
  type TickOptions,
  type TickReport,
  type WorkflowInputs,
} from "../../index.js";
import { createApp, type TickqEnv } from "../../http/app.js";
import type { Dashboard } from "../../dashboard/types.js";
import { fanOutStarter } from "../../http/fanout.js";
import { backgroundWork, startTickLoop } from "../../http/in-process.js";
import { nodeClient } from "../../http/throttle.js";
import { listen } from "./listen.js";
import { connectRedis } from "./redis-client.js";
import { tickqOptionsOf } from "./server-options.js";
import { printable } from "../../printable.js";

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

/** A server `startServer` started. */
export interface RunningServer {
  /** Where it listens, e.g. "http://127.0.0.1:3000". */
  url: string;
  /** The server's tickq, kicking in-process (in your own code on the same Node process). */
  tickq: Tickq<JobRegistry>;
  /** Stops the tick loop, waits for the running tick and background work, then closes the HTTP server and the Redis connection. */
  close(): Promise<void>;
}

/**
 * The Node server: the app on `port`, plus a tick every `tickEveryMs` (default 1 s). Refuses to start
 * without `secret` unless `insecure`.
 */
export async function startServer<W extends WorkflowInputs = WorkflowInputs>(
  options: ServerOptions<W>,
): Promise<RunningServer> {
  if (!options.secret && !options.insecure) {
    throw new Error(
      "Refusing to start without a secret: set `secret` (TICKQ_SECRET), or `insecure: true` for local development only",
    );
  }
  const redis = connectRedis(options.redisUrl, console.error, { cluster: options.cluster });
  const { maxParallel } = options;
  let more: (() => Promise<void>) | undefined;
  const spread = () =>
    void more?.().catch((e: unknown) => console.warn(`tickq: fan-out failed: ${printable((e as Error).message)}`));
  const fanning = maxParallel === undefined ? {} : { maxParallel, onBacklog: spread };
  const tickOptions: TickOptions = { budgetMs: 5_000, ...options.tick, ...fanning };
  const kick = typeof options.kick === "object" ? options.kick : {};
  let base: Tickq<JobRegistry>;
  try {
    base = createTickq({
      ...tickqOptionsOf(options),
      redis: redis.adapter,
      redisTimeoutMs: options.redisTimeoutMs ?? 2_000,
      kick: { ...kick, tick: { ...tickOptions, ...kick.tick } },
    });
  } catch (error) {
    redis.close();
    throw error;
  }

  // Background work (kicks, fan-out, ?wait=0 ticks) runs in-process; close() waits for it.
  const background = backgroundWork();
  const { waitUntil } = background;
  let url = "";
  const listeningUrl = () => url;
  let app: Hono<TickqEnv>;
  try {
    // Refuses a short or unusable secret, and fan-out with nowhere configured to go, before a port is taken.
    app = createApp({
      tickq: base,
      secrets: [options.secret],
      readSecrets: [options.readSecret],
      metricsSecrets: [options.metricsSecret],
      tickSecrets: [options.tickSecret],
      insecure: options.insecure,
      tick: tickOptions,
      kick: Boolean(options.kick),
      maxParallel,
      waitUntil,
      routes: options.routes,
      dashboard: options.dashboard,
      publicUrl: options.publicUrl,
      listeningUrl,
      clientOf: nodeClient,
    });
    more = fanOutStarter({
      tickq: base,
      maxParallel,
      publicUrl: options.publicUrl,
      listeningUrl,
      secret: options.secret ?? options.tickSecret,
    });
  } catch (error) {
    redis.close();
    throw error;
  }
  const tickq = base.scope({ waitUntil, kick: Boolean(options.kick), onMore: more });

  const loop =
    options.tickEveryMs === 0
      ? undefined
      : startTickLoop(base, {
          everyMs: options.tickEveryMs ?? 1_000,
          tick: tickOptions,
          onTick: options.onTick,
          onMore: more,
        });

  const server = await listen(app.fetch, options.port ?? 3000).catch(async (error: unknown) => {
    await loop?.stop();
    redis.close();
    throw error;
  });
  url = server.url;
  return {
    url: server.url,
    tickq,
    close: async () => {
      await loop?.stop();
      await background.settled();
      await server.close();
      redis.close();
    },
  };
}
