// tickq under Bun: the app on Bun.serve and a tick every second, as on Node. Bun is a long-lived
// process, so kicked ticks and fan-out run in-process after the response; stop() waits for them.
// Redis: any adapter (ioredis runs under Bun over TCP), else Upstash's REST API from the env.
/**
 * tickq under Bun: `serveBun` serves the app on `Bun.serve` and ticks every second.
 *
 * @module tickq/bun
 */
import type { JobRegistry, Tickq, TickReport } from "../../index.js";
import type { EdgeOptions } from "../../http/edge.js";
import { inProcessEdge } from "../../http/in-process.js";
import { TickqError } from "../../errors.js";
import type { ClientOf } from "../../http/throttle.js";

/** The part of Bun's server tickq uses. */
interface BunServer {
  port: number;
  hostname: string;
  stop(closeActiveConnections?: boolean): void | Promise<void>;
  requestIP(request: Request): { address: string } | null;
}

/** The part of the `Bun` global tickq uses. */
interface BunRuntime {
  serve(options: {
    port: number;
    hostname: string;
    fetch(request: Request, server: BunServer): Response | Promise<Response>;
  }): BunServer;
  env: Record<string, string | undefined>;
}

/** The caller's address, as Bun's server saw the connection (the throttle's key). */
const bunClient: ClientOf = (c) => (c.env as BunServer | undefined)?.requestIP?.(c.req.raw)?.address;

/**
 * Every {@link tickq!TickqOptions | TickqOptions} option, with `redis` optional (Upstash's REST API from
 * `UPSTASH_REDIS_REST_URL` and `UPSTASH_REDIS_REST_TOKEN` unless given, e.g. `ioredisAdapter(new Redis(url))`),
 * the app's `kick`, `maxParallel`, `tick`, `routes` and `dashboard`, and the server's own below.
 */
export type TickqBunOptions<J extends JobRegistry> = EdgeOptions<J> & {
  /** The port to listen on; default 3000, 0 for any free one. */
  port?: number;
  /** The address to listen on; default "127.0.0.1". */
  hostname?: string;
  /** Milliseconds between ticks; default 1,000; 0 turns the loop off (tick from your own scheduler). */
  tickEveryMs?: number;
  /** Called with each loop tick's report. */
  onTick?: (report: TickReport) => void;
  /** Where settings and secrets come from (TICKQ_SECRET…); default `Bun.env`. */
  env?: Record<string, string | undefined>;
};

/** A server `serveBun` started. */
export interface BunTickqServer<J extends JobRegistry> {
  /** Where it listens, e.g. "http://127.0.0.1:3000". */
  url: string;
  /** The server's tickq, kicking in-process. */
  tickq: Tickq<J>;
  /** Stops the tick loop, waits for the running tick and background work, then stops the HTTP server. */
  stop(): Promise<void>;
}

/**
 * Serves the app (your `routes`, `/tick`, `/jobs`, the dashboard…) on `Bun.serve` and ticks every
 * `tickEveryMs`. Secrets and settings come from the env as on every platform (`TICKQ_SECRET`…).
 * @example
 * const server = serveBun({ redis: ioredisAdapter(new Redis(Bun.env.REDIS_URL)), jobs, kick: true });
 */
export function serveBun<J extends JobRegistry>(options: TickqBunOptions<J>): BunTickqServer<J> {
  const bun = (globalThis as { Bun?: BunRuntime }).Bun;
  if (!bun) {
    throw new TickqError(
      "BAD_OPTIONS",
      "serveBun runs under Bun (bun run …); on Node, use startServer from tickq/node",
    );
  }
  const { port, hostname, tickEveryMs, onTick, env: given, ...rest } = options;
  const env = given ?? bun.env;
  const served = inProcessEdge(rest as EdgeOptions<J>, env, bunClient);
  // The server goes to the app as its env, so the throttle can ask it for the caller's address.
  const server = bun.serve({
    port: port ?? 3000,
    hostname: hostname ?? "127.0.0.1",
    fetch: (request, bunServer) => served.edge.app.fetch(request, bunServer),
  });
  served.loop(tickEveryMs ?? 1_000, onTick);
  return {
    url: `http://${server.hostname}:${server.port}`,
    tickq: served.tickq,
    stop: async () => {
      await served.stop();
      await server.stop();
    },
  };
}
