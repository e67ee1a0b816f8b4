// tickq inside a Fastify app: `app.register(tickqFastify(...), { prefix: "/tickq" })` serves tickq's
// app and the dashboard under the prefix (links, cookies and redirects under it). The plugin keeps
// Fastify's encapsulation, so its content-type parser — which leaves every body unread, for the app
// to read its raw bytes — applies to its own routes only, and app.close() waits for its ticks.
/**
 * tickq inside a Fastify app: `tickqFastify` is a plugin to register under a prefix.
 *
 * @module tickq/fastify
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { JobRegistry, Tickq } from "../../index.js";
import { mountTickq, type MountedOptions } from "../node/mounted.js";

export type { MountedOptions };

/** Options of `tickqFastify`: every option of the app (see `MountedOptions`). */
export type TickqFastifyOptions<J extends JobRegistry> = MountedOptions<J>;

/** A Fastify plugin serving tickq, with its tickq. */
export interface TickqFastifyPlugin<J extends JobRegistry> {
  (fastify: FastifyInstance): Promise<void>;
  /** The tickq, kicking in-process: enqueue from your own routes. */
  tickq: Tickq<J>;
  /** Stops the tick loop and waits for the running tick and every kicked tick; app.close() calls it. */
  close(): Promise<void>;
}

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/**
 * A Fastify plugin serving tickq's routes (`/tick`, `/jobs`, `/stats`, `/health`…) and the dashboard
 * under the prefix it is registered with, ticking every second in-process.
 * @example
 * const tickq = tickqFastify({ redis: ioredisAdapter(new Redis(url)), jobs, dashboard: dashboard() });
 * await app.register(tickq, { prefix: "/tickq" });
 * app.post("/signup", async (req) => ({ jid: await tickq.tickq.enqueue("sendWelcomeEmail", [email], { kick: true }) }));
 */
export function tickqFastify<J extends JobRegistry>(options: TickqFastifyOptions<J>): TickqFastifyPlugin<J> {
  const mounted = mountTickq(options);
  const plugin = async (fastify: FastifyInstance) => {
    const listener = mounted.listenerAt(fastify.prefix);
    // The app reads and limits its own bodies (POST /jobs): Fastify's parsers would consume the stream first.
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser("*", (_request, _payload, done) => done(null));
    fastify.addHook("onClose", () => mounted.close());
    const serve = async (request: FastifyRequest, reply: FastifyReply) => {
      reply.hijack();
      await listener(request.raw, reply.raw);
    };
    fastify.route({ method: [...METHODS], url: "/", handler: serve });
    fastify.route({ method: [...METHODS], url: "/*", handler: serve });
  };
  return Object.assign(plugin, { tickq: mounted.tickq, close: mounted.close });
}
