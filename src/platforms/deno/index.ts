// tickq under Deno: the app on Deno.serve, and Deno.cron as the tick's trigger (Deno Deploy's cron;
// `--unstable-cron` when run locally). A cron fires once a minute at most, so each run ticks until
// the work or its budget runs out, as a Worker's Cron Trigger does; kicked ticks run in-process after
// the response, so a kicked job does not wait for the minute. Redis: any adapter (ioredis from
// `npm:ioredis` over TCP), else Upstash's REST API from the env.
/**
 * tickq under Deno: `serveDeno` serves the app on `Deno.serve` and ticks on `Deno.cron`.
 *
 * @module tickq/deno
 */
import type { JobRegistry, Tickq, TickReport } from "../../index.js";
import { tickUntilDone } from "../../http/drain.js";
import type { EdgeOptions } from "../../http/edge.js";
import { inProcessEdge } from "../../http/in-process.js";
import type { ClientOf } from "../../http/throttle.js";
import { TickqError } from "../../errors.js";

/** What Deno passes a handler beside the request: the caller's address. */
interface DenoServeInfo {
  remoteAddr: { hostname: string };
}

/** The part of Deno's server tickq uses. */
interface DenoServer {
  addr: { hostname: string; port: number };
  shutdown(): Promise<void>;
}

/** The part of the `Deno` global tickq uses. */
interface DenoRuntime {
  serve(
    options: { port: number; hostname: string; onListen?: (addr: unknown) => void },
    handler: (request: Request, info: DenoServeInfo) => Response | Promise<Response>,
  ): DenoServer;
  cron?: (name: string, schedule: string, handler: () => Promise<void>) => Promise<void>;
  env: { toObject(): Record<string, string> };
}

/** The caller's address, as Deno saw the connection (the throttle's key). */
const denoClient: ClientOf = (c) => (c.env as DenoServeInfo | undefined)?.remoteAddr?.hostname;

/**
 * Every {@link tickq!TickqOptions | TickqOptions} option, with `redis` optional (Upstash's REST API from
 * `UPSTASH_REDIS_REST_URL` and `UPSTASH_REDIS_REST_TOKEN` unless given, e.g. `ioredisAdapter(new Redis(url))`
 * with `npm:ioredis`), the app's `kick`, `maxParallel`, `tick`, `routes` and `dashboard`, and the server's own below.
 */
export type TickqDenoOptions<J extends JobRegistry> = EdgeOptions<J> & {
  /** The port to listen on; default 8000 (Deno's), 0 for any free one. */
  port?: number;
  /** The address to listen on; default "127.0.0.1" ("0.0.0.0" on Deno Deploy is set by the platform). */
  hostname?: string;
  /**
   * The `Deno.cron` schedule that ticks; default every minute ("* * * * *"); false: no cron. Not `cron`,
   * which stays createTickq's parser for recurring schedules (from "tickq/cron").
   */
  denoCron?: string | false;
  /** Wall time each cron run may spend ticking; default 50,000 ms. */
  cronBudgetMs?: number;
  /** Also tick every this many milliseconds in-process (a self-hosted Deno); default 0: off. */
  tickEveryMs?: number;
  /** Called with each tick's report (cron runs and the loop). */
  onTick?: (report: TickReport) => void;
  /** Where settings and secrets come from (TICKQ_SECRET…); default `Deno.env`. */
  env?: Record<string, string | undefined>;
};

/** A server `serveDeno` started. */
export interface DenoTickqServer<J extends JobRegistry> {
  /** Where it listens, e.g. "http://127.0.0.1:8000". */
  url: string;
  /** The server's tickq, kicking in-process. */
  tickq: Tickq<J>;
  /** Stops the loop, waits for the running tick and background work, then shuts the HTTP server down. */
  shutdown(): Promise<void>;
}

/**
 * Serves the app (your `routes`, `/tick`, `/jobs`, the dashboard…) on `Deno.serve` and ticks on
 * `Deno.cron`. Secrets and settings come from the env as on every platform (`TICKQ_SECRET`…).
 * @example
 * serveDeno({ redis: ioredisAdapter(new Redis(Deno.env.get("REDIS_URL"))), jobs, kick: true });
 */
export function serveDeno<J extends JobRegistry>(options: TickqDenoOptions<J>): DenoTickqServer<J> {
  const deno = (globalThis as { Deno?: DenoRuntime }).Deno;
  if (!deno) throw new TickqError("BAD_OPTIONS", "serveDeno runs under Deno (deno run …); on Node, use tickq/node");
  const givenCron: unknown = (options as { cron?: unknown }).cron;
  if (typeof givenCron === "string" || givenCron === false) {
    throw new TickqError(
      "BAD_OPTIONS",
      `serveDeno's Deno.cron schedule is denoCron (denoCron: ${JSON.stringify(givenCron)}); cron is createTickq's parser for recurring jobs, from "tickq/cron"`,
    );
  }
  const { port, hostname, denoCron, cronBudgetMs, tickEveryMs, onTick, env: given, ...rest } = options;
  const schedule = denoCron ?? "* * * * *";
  if (schedule !== false && typeof deno.cron !== "function") {
    throw new TickqError(
      "BAD_OPTIONS",
      "serveDeno ticks on Deno.cron, which this Deno lacks: run with --unstable-cron (Deno Deploy has it), or pass denoCron: false and tickEveryMs",
    );
  }
  const env = given ?? deno.env.toObject();
  const served = inProcessEdge(rest as EdgeOptions<J>, env, denoClient);
  const { edge } = served;
  const base = edge.tickq as Tickq<JobRegistry>;
  if (schedule !== false) {
    void deno.cron?.("tickq tick", schedule, async () => {
      const reports = await tickUntilDone(base, cronBudgetMs ?? 50_000, edge.tick, edge.fanOut);
      for (const report of reports) onTick?.(report);
    });
  }
  served.loop(tickEveryMs ?? 0, onTick);
  // The info goes to the app as its env, so the throttle can read the caller's address.
  const server = deno.serve(
    { port: port ?? 8000, hostname: hostname ?? "127.0.0.1", onListen: () => {} },
    (request, info) => edge.app.fetch(request, info),
  );
  return {
    url: `http://${server.addr.hostname}:${server.addr.port}`,
    tickq: served.tickq,
    shutdown: async () => {
      await served.stop();
      await server.shutdown();
    },
  };
}
