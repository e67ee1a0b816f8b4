// tickq inside an Express app: `app.use("/tickq", tickqExpress(...))` serves tickq's app and the
// dashboard under the path Express mounts it at (links, cookies and redirects under it). Express
// strips the mount from req.url; the handler gives the app the original URL and the mount as its
// basePath, learnt from the first request (req.baseUrl) unless `basePath` says it.
/**
 * tickq inside an Express app: `tickqExpress` is a request handler to mount under a path.
 *
 * @module tickq/express
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JobRegistry, Tickq } from "../../index.js";
import { TickqError } from "../../errors.js";
import { mountTickq, type MountedOptions, type NodeListener } from "../node/mounted.js";

export type { MountedOptions };

/** The fields of Express' request the handler reads (Express 4 and 5 set them). */
export type ExpressRequest = IncomingMessage & {
  /** The path Express matched the mount at, e.g. "/tickq". */
  baseUrl?: string;
  /** The URL as the client sent it, mount included. */
  originalUrl?: string;
  /** The body's bytes, when a body parser before tickq kept them (express.json's `verify`). */
  rawBody?: unknown;
};

/** Options of `tickqExpress`: every option of the app (see `MountedOptions`), and where it is mounted. */
export type TickqExpressOptions<J extends JobRegistry> = MountedOptions<J> & {
  /** The full path it is mounted at, e.g. "/tickq"; default the path Express reports at the first request. */
  basePath?: string;
};

/** An Express request handler serving tickq, with its tickq and a close() that waits. */
export interface TickqExpressHandler<J extends JobRegistry> {
  (req: ExpressRequest, res: ServerResponse, next: (error?: unknown) => void): void;
  /** The tickq, kicking in-process: enqueue from your own routes. */
  tickq: Tickq<J>;
  /** Stops the tick loop and waits for the running tick and every kicked tick: call it before your server exits. */
  close(): Promise<void>;
}

const BODY_READ =
  "a body parser read this request before tickq did: mount tickqExpress before express.json() and the like, " +
  "or keep the raw bytes for it with express.json({ verify: (req, _res, buf) => { req.rawBody = buf } })";

/**
 * An Express handler serving tickq's routes (`/tick`, `/jobs`, `/stats`, `/health`…) and the dashboard
 * under the path it is mounted at, ticking every second in-process.
 * @example
 * const tickq = tickqExpress({ redis: ioredisAdapter(new Redis(url)), jobs, dashboard: dashboard() });
 * app.use("/tickq", tickq);
 * app.post("/signup", async (req, res) => res.json({ jid: await tickq.tickq.enqueue("sendWelcomeEmail", [email], { kick: true }) }));
 */
export function tickqExpress<J extends JobRegistry>(options: TickqExpressOptions<J>): TickqExpressHandler<J> {
  const { basePath: given, ...rest } = options;
  const mounted = mountTickq(rest as MountedOptions<J>);
  let at: { path: string; listener: NodeListener } | undefined;
  const handler = (req: ExpressRequest, res: ServerResponse, next: (error?: unknown) => void) => {
    const path = (given ?? req.baseUrl ?? "").replace(/\/+$/, "");
    at ??= { path, listener: mounted.listenerAt(path) };
    if (at.path !== path) {
      next(
        new TickqError(
          "BAD_OPTIONS",
          `tickqExpress is mounted at ${at.path || "/"} and ${path || "/"}: mount one handler per path, or pass basePath`,
        ),
      );
      return;
    }
    if (req.readableEnded && !Buffer.isBuffer(req.rawBody)) {
      res.statusCode = 500;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ error: BODY_READ }));
      return;
    }
    // The app routes and links by the full path, mount included.
    if (req.originalUrl !== undefined) req.url = req.originalUrl;
    at.listener(req, res).catch(next);
  };
  return Object.assign(handler, { tickq: mounted.tickq, close: mounted.close });
}
