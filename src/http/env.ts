// The string settings every edge entry reads from its environment (a
// Worker's env, Vercel's process.env), turned into createTickq and
// createApp options once, the same way for each.
import type { KickOptions, TickOptions } from "../index.js";
import { numberSetting } from "./drain.js";

export interface TickqEnvVars {
  /** Opens every route and the dashboard. */
  TICKQ_SECRET?: string;
  /** Starts ticks and nothing else (Vercel Cron sends it). */
  CRON_SECRET?: string;
  /** Reads: the GET routes, nothing that changes anything. */
  TICKQ_READ_SECRET?: string;
  /** Scrapes GET /metrics and nothing else (Prometheus). */
  TICKQ_METRICS_SECRET?: string;
  /** "1": serve without auth, for local development only. */
  TICKQ_INSECURE?: string;
  /** Key prefix; default "tickq:". */
  TICKQ_PREFIX?: string;
  /** Partitions the keys are spread over (a Redis Cluster): a count, or "auto"; default the code's, else 1. */
  TICKQ_PARTITIONS?: string;
  /** Budget of one tick; default 10,000 ms. */
  TICKQ_TICK_BUDGET_MS?: string;
  /** Jobs per fetch; default 50. */
  TICKQ_BATCH?: string;
  /** "1": enqueues through the app kick a tick at once. */
  TICKQ_KICK?: string;
  /** Kicked ticks at once; default 2. */
  TICKQ_KICK_MAX?: string;
  /** Wall time one kick may spend ticking; default 10,000 ms. */
  TICKQ_KICK_BUDGET_MS?: string;
  /** Fan-out: at most this many ticks live at once; default off. */
  TICKQ_MAX_PARALLEL?: string;
  /** The app's own URL for fan-out (basePath included); never taken from a request. */
  TICKQ_PUBLIC_URL?: string;
}

export interface EnvSettings {
  /** Full access: TICKQ_SECRET. */
  secrets: (string | undefined)[];
  /** Ticks only: CRON_SECRET. */
  tickSecrets: (string | undefined)[];
  /** Read only: TICKQ_READ_SECRET. */
  readSecrets: (string | undefined)[];
  /** GET /metrics only: TICKQ_METRICS_SECRET. */
  metricsSecrets: (string | undefined)[];
  insecure: boolean;
  prefix?: string;
  /** TICKQ_PARTITIONS: a count or "auto"; undefined when unset (the code's option, else 1). */
  partitions?: number | "auto";
  /** Only what the env sets: code options fill the rest. */
  tick: TickOptions;
  kickByDefault: boolean;
  kick: KickOptions;
  maxParallel?: number;
  publicUrl?: string;
}

export const isOn = (value: string | undefined) => value === "1" || value === "true";

export function envSettings(env: TickqEnvVars): EnvSettings {
  const parallel = env.TICKQ_MAX_PARALLEL ? numberSetting(env.TICKQ_MAX_PARALLEL, 1, "TICKQ_MAX_PARALLEL") : undefined;
  const tick: TickOptions = {
    ...(env.TICKQ_TICK_BUDGET_MS
      ? { budgetMs: numberSetting(env.TICKQ_TICK_BUDGET_MS, 0, "TICKQ_TICK_BUDGET_MS") }
      : {}),
    ...(env.TICKQ_BATCH ? { batch: numberSetting(env.TICKQ_BATCH, 0, "TICKQ_BATCH") } : {}),
  };
  return {
    secrets: [env.TICKQ_SECRET],
    tickSecrets: [env.CRON_SECRET],
    readSecrets: [env.TICKQ_READ_SECRET],
    metricsSecrets: [env.TICKQ_METRICS_SECRET],
    insecure: isOn(env.TICKQ_INSECURE),
    prefix: env.TICKQ_PREFIX || undefined,
    partitions: partitionsSetting(env.TICKQ_PARTITIONS),
    tick,
    kickByDefault: isOn(env.TICKQ_KICK),
    kick: {
      ...(env.TICKQ_KICK_MAX ? { max: numberSetting(env.TICKQ_KICK_MAX, 0, "TICKQ_KICK_MAX") } : {}),
      ...(env.TICKQ_KICK_BUDGET_MS
        ? { budgetMs: numberSetting(env.TICKQ_KICK_BUDGET_MS, 0, "TICKQ_KICK_BUDGET_MS") }
        : {}),
    },
    maxParallel: parallel === undefined ? undefined : Math.floor(parallel),
    publicUrl: env.TICKQ_PUBLIC_URL || undefined,
  };
}

/** TICKQ_PARTITIONS: "auto", or a whole number from 1 (createTickq checks the upper bound); undefined when unset. */
export function partitionsSetting(value: string | undefined): number | "auto" | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  if (value.trim() === "auto") return "auto";
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1)
    throw new Error(`TICKQ_PARTITIONS must be a whole number from 1, or "auto"; got ${JSON.stringify(value)}`);
  return Number(value);
}
