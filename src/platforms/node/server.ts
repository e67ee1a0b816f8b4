// The Node server: the shared app on @hono/node-server, plus a tick every
// second (skipped while the previous one still runs). Kicked ticks and
// fan-out run in-process; close() waits for them.
import type { Hono } from "hono";
import {
  createTickq,
  type JobLogger,
  type JobRegistry,
  type Tickq,
  type TickOptions,
  type WorkflowInputs,
} from "../../index.js";
import { createApp, type TickqEnv } from "../../http/app.js";
import { checkAllSecrets } from "../../http/auth.js";
import { fanOutStarter } from "../../http/fanout.js";
import { backgroundWork, startTickLoop } from "../../http/in-process.js";
import { nodeClient } from "../../http/throttle.js";
import { listen } from "./listen.js";
import { connectRedis } from "./redis-client.js";
import { tickqOptionsOf, type ServerOptions } from "./server-options.js";
import { printable } from "../../printable.js";
import type { RedisWatch } from "./redis-watch.js";

export type { ServerOptions };

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
      ...(options.structuredLogger ? {} : { logger: quietWhileDown(options.logger ?? console, redis.watch) }),
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
    // The secrets first, named by startServer's own options (createApp would name its own).
    checkAllSecrets(
      {
        admin: [options.secret],
        read: [options.readSecret],
        tick: [options.tickSecret],
        metrics: [options.metricsSecret],
      },
      "startServer",
      {
        admin: "TICKQ_SECRET, or the secret option",
        read: "read-only: TICKQ_READ_SECRET, or the readSecret option",
        tick: "ticks only: CRON_SECRET, or the tickSecret option",
        metrics: "GET /metrics only: TICKQ_METRICS_SECRET, or the metricsSecret option",
      },
    );
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
      logged: redis.watch.logged,
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
          logged: redis.watch.logged,
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

/** The tickq's logger, without the lines that only repeat that Redis is down (the watch says it at a backoff). */
function quietWhileDown(logger: JobLogger, watch: RedisWatch): JobLogger {
  return {
    info: (message, ...rest) => logger.info(message, ...rest),
    warn: (message, ...rest) => void (watch.repeats(message) || logger.warn(message, ...rest)),
    error: (message, ...rest) => void (watch.repeats(message) || logger.error(message, ...rest)),
  };
}
