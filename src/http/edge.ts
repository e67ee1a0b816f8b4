// What the Worker and the Vercel entries share: every createTickq option,
// plus the app's own (kick, fan-out, your routes), merged with the env
// settings (src/http/env.ts) into one tickq and one app. The tickq is the
// core's: cron schedules are parsed only with the `cron` option ("tickq/cron"),
// so a Worker without them ships no croner (~10 KB gzipped).
import type { Hono } from "hono";
import { createTickqCore } from "../core.js";
import type { JobRegistry, KickOptions, RedisAdapter, Tickq, TickOptions, TickqOptions, WaitUntil } from "../index.js";
import { createApp, type AppOptions, type TickqEnv } from "./app.js";
import { envSettings, type EnvSettings, type TickqEnvVars } from "./env.js";
import { fanOutStarter } from "./fanout.js";

// Env settings win over code options: a deployment tunes itself without a rebuild.

/** A Redis call slower than this fails: with Redis down a request answers 503 within about 2 s, not 10. */
export const EDGE_REDIS_TIMEOUT_MS = 2_000;

/** Every createTickq option; `cron` (from "tickq/cron") is needed for cron schedules, which it parses. */
export type EdgeOptions<J extends JobRegistry> = Omit<TickqOptions<J>, "redis" | "kick"> & {
  /** Your own Redis adapter; default restAdapter over Upstash's REST API from the env (UPSTASH_REDIS_REST_URL, UPSTASH_REDIS_REST_TOKEN). */
  redis?: RedisAdapter;
  /** true (or TICKQ_KICK=1): enqueues through the app kick a tick at once; an object also sets how kicked ticks run. */
  kick?: boolean | KickOptions;
  /** Fan-out: up to this many ticks live at once (TICKQ_MAX_PARALLEL); default off. */
  maxParallel?: number;
  /** Options of every tick the app runs (env budget and batch win when set). */
  tick?: TickOptions;
  /** Your own routes on the app, before auth, with `c.var.tq` (docs/getting-started.md, "Add tickq to your app"). */
  routes?: AppOptions<J>["routes"];
  /** The web dashboard at /dashboard: `dashboard()` from "tickq/dashboard" (docs/operate/dashboard.md); default none. */
  dashboard?: AppOptions<J>["dashboard"];
};

/** Whether enqueues through the app kick unless told not to: TICKQ_KICK=1, or `kick` given in code. */
export const kicksByDefault = (settings: EnvSettings, kick: EdgeOptions<JobRegistry>["kick"]) =>
  settings.kickByDefault || (kick !== undefined && kick !== false);

export interface Edge<J extends JobRegistry> {
  tickq: Tickq<J>;
  app: Hono<TickqEnv<J>>;
  settings: EnvSettings;
  tick: TickOptions;
  /** Starts more ticks through the app's configured URL or binding; undefined when fan-out is off. */
  fanOut?: () => Promise<void>;
  /** The same app over the same tickq, mounted at another path: for a framework that tells its mount only at a request (Express). */
  appAt(basePath: string): Hono<TickqEnv<J>>;
}

/** Every credential an edge entry's env may hold: masked in whatever it logs. */
export const credentialsOf = (env: Record<string, unknown>): string[] =>
  [
    "TICKQ_SECRET",
    "CRON_SECRET",
    "TICKQ_READ_SECRET",
    "UPSTASH_REDIS_REST_TOKEN",
    "KV_REST_API_TOKEN",
    "UPSTASH_REDIS_REST_URL",
    "KV_REST_API_URL",
  ]
    .map((name) => env[name])
    .filter((v): v is string => typeof v === "string" && v.length > 0);

export function buildEdge<J extends JobRegistry>(
  options: EdgeOptions<J>,
  env: TickqEnvVars,
  redis: () => RedisAdapter,
  app: Pick<AppOptions<J>, "basePath" | "selfFetch" | "waitUntil" | "clientOf"> = {},
): Edge<J> {
  const settings = envSettings(env);
  const maxParallel = settings.maxParallel ?? options.maxParallel;
  const tick: TickOptions = {
    budgetMs: 10_000,
    batch: 50,
    ...options.tick,
    ...settings.tick,
    ...(maxParallel === undefined ? {} : { maxParallel }),
  };
  const kickOptions = typeof options.kick === "object" ? options.kick : {};
  const { routes, dashboard, maxParallel: _m, tick: _t, kick: _k, redis: own, ...core } = options;
  const tickq = createTickqCore<J>({
    redisTimeoutMs: EDGE_REDIS_TIMEOUT_MS,
    ...core,
    redis: own ?? redis(),
    prefix: settings.prefix ?? options.prefix,
    partitions: settings.partitions ?? options.partitions,
    kick: { ...kickOptions, ...settings.kick, tick: { ...tick, ...kickOptions.tick } },
  });
  const appAt = (basePath: string | undefined) =>
    createApp<J>({
      tickq,
      secrets: settings.secrets,
      tickSecrets: settings.tickSecrets,
      readSecrets: settings.readSecrets,
      metricsSecrets: settings.metricsSecrets,
      insecure: settings.insecure,
      tick,
      kick: kicksByDefault(settings, options.kick),
      maxParallel,
      publicUrl: settings.publicUrl,
      routes,
      dashboard,
      ...app,
      basePath,
    });
  const served = appAt(app.basePath);
  const fanOut = fanOutStarter({
    tickq: tickq as Tickq<JobRegistry>,
    maxParallel,
    publicUrl: settings.publicUrl,
    selfFetch: app.selfFetch,
    basePath: app.basePath,
    secret: settings.secrets.find(Boolean) ?? settings.tickSecrets.find(Boolean),
  });
  return { tickq, app: served, settings, tick, fanOut, appAt };
}

export type { WaitUntil };
