// tickq inside a Node framework's server (Express, Fastify): the app under the path the framework
// mounts it at, served through @hono/node-server's request listener, so no request is translated by
// hand. The server is the user's and long-lived, so kicked ticks and fan-out run in-process after the
// response, a tick runs every second unless turned off, and close() waits for both.
import { getRequestListener } from "@hono/node-server";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JobRegistry, Tickq, TickReport } from "../../index.js";
import type { EdgeOptions } from "../../http/edge.js";
import { inProcessEdge } from "../../http/in-process.js";
import { nodeClient } from "../../http/throttle.js";

/**
 * Every {@link tickq!TickqOptions | TickqOptions} option, with `redis` optional (Upstash's REST API from
 * `UPSTASH_REDIS_REST_URL` and `UPSTASH_REDIS_REST_TOKEN` unless given, e.g. `ioredisAdapter(new Redis(url))`),
 * the app's `kick`, `maxParallel`, `tick`, `routes` and `dashboard`, and the in-process loop's own below.
 */
export type MountedOptions<J extends JobRegistry> = EdgeOptions<J> & {
  /** Milliseconds between ticks; default 1,000; 0 turns the loop off (tick from your own scheduler through /tick). */
  tickEveryMs?: number;
  /** Called with each loop tick's report. */
  onTick?: (report: TickReport) => void;
  /** Where settings and secrets come from (TICKQ_SECRET…); default process.env. */
  env?: Record<string, string | undefined>;
};

/** A Node request listener: the framework hands it the raw request and response. */
export type NodeListener = (incoming: IncomingMessage, outgoing: ServerResponse) => Promise<void>;

export interface Mounted<J extends JobRegistry> {
  /** The tickq, kicking in-process: for your own routes. */
  tickq: Tickq<J>;
  /** The app mounted at `basePath` (the full path the framework serves it under), as a Node listener. */
  listenerAt(basePath: string): NodeListener;
  /** Stops the tick loop and waits for the running tick and every kicked tick. */
  close(): Promise<void>;
}

/** Builds the tickq and its loop once; what stops it is thrown, credentials masked. */
export function mountTickq<J extends JobRegistry>(options: MountedOptions<J>): Mounted<J> {
  const { tickEveryMs, onTick, env: given, ...rest } = options;
  const served = inProcessEdge(rest as EdgeOptions<J>, given ?? process.env, nodeClient);
  served.loop(tickEveryMs ?? 1_000, onTick);
  return {
    tickq: served.tickq,
    listenerAt: (basePath) => {
      const app = served.edge.appAt(basePath.replace(/\/+$/, ""));
      // @hono/node-server hands the app { incoming, outgoing } as its env: the throttle reads the socket's address there.
      return getRequestListener((request, served) => app.fetch(request, served));
    },
    close: () => served.stop(),
  };
}
