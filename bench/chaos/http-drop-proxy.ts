// An HTTP proxy in front of the local Upstash-compatible REST server that
// can drop one response: armed, it forwards the next request, reads the
// whole response (the REST server has run the command), then destroys the
// client's socket. @upstash/redis sees `fetch failed` and retries the same
// request: the script runs a second time.
import { Agent, createServer, request } from "node:http";
import type { Socket } from "node:net";
import { dropTrigger } from "./drop-trigger.js";

export interface HttpDropProxy {
  url: string;
  /** Drops the response to the next request; resolves true once one was dropped, false after timeoutMs. */
  dropNextResponse(timeoutMs: number): Promise<boolean>;
  dropped(): number;
  close(): Promise<void>;
}

export async function startHttpDropProxy(targetUrl: string): Promise<HttpDropProxy> {
  const target = new URL(targetUrl);
  const agent = new Agent({ keepAlive: true });
  const sockets = new Set<Socket>();
  const trigger = dropTrigger();

  const server = createServer((req, res) => {
    const drop = req.method === "POST" && trigger.claim();
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        if (!drop) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        answer.resume();
        answer.on("end", () => {
          req.socket.destroy();
          trigger.fired();
        });
      },
    );
    upstream.on("error", () => req.socket.destroy());
    req.pipe(upstream);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : 0;

  return {
    url: `http://127.0.0.1:${bound}`,
    dropNextResponse: (timeoutMs) => trigger.arm(timeoutMs),
    dropped: trigger.dropped,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
