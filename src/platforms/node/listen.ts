// Serving a Hono app on Node, and stopping on SIGINT/SIGTERM: shared by the
// tickq server and the local Upstash-compatible server.
import { serve, type ServerType } from "@hono/node-server";

/** A listening HTTP server. */
export interface Listening {
  /** Where it listens, e.g. "http://127.0.0.1:3000". */
  url: string;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 (port 0: any free port) and resolves once it does.
 * A port in use rejects with a one-line message that says what to do.
 */
export async function listen(fetch: (request: Request) => Response | Promise<Response>, port = 0): Promise<Listening> {
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch, port, hostname: "127.0.0.1" }, () => resolve(s));
    s.once("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "EADDRINUSE"
          ? new Error(
              `port ${port} is in use: stop what listens there, or choose another with PORT (PORT=${port + 1} npm start)`,
            )
          : error,
      );
    });
  });
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : port;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}

/** Runs `stop` once on SIGINT or SIGTERM, then exits. */
export function stopOnSignals(stop: () => Promise<void>): void {
  const handler = async () => {
    await stop();
    process.exit(0);
  };
  process.once("SIGINT", handler);
  process.once("SIGTERM", handler);
}
