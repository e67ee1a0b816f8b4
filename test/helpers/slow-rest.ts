// An HTTP proxy in front of the local Upstash-compatible REST server that,
// once armed, lets the REST server run the next call of one script and
// holds its response for `holdMs`: a reply later than the client's
// redisTimeoutMs, as a slow round trip under load delivers it. Every other
// request goes through at once.
import { createHash } from "node:crypto";
import { Agent, createServer, request } from "node:http";
import type { Socket } from "node:net";
import type { LuaScript } from "../../src/redis/types.js";

export interface SlowRest {
  url: string;
  /** Arms at once: the next call of `script` (EVALSHA or EVAL) is answered `holdMs` late; resolves once it was. */
  holdNext(script: LuaScript, holdMs: number): Promise<void>;
  close(): Promise<void>;
}

export async function startSlowRest(targetUrl: string): Promise<SlowRest> {
  const target = new URL(targetUrl);
  const agent = new Agent({ keepAlive: true });
  const sockets = new Set<Socket>();
  let armed: { marks: string[]; holdMs: number; done: () => void } | undefined;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const text = body.toString("utf8");
      const hold = armed?.marks.some((mark) => text.includes(mark)) ? armed : undefined;
      if (hold) armed = undefined;
      const upstream = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on("data", (chunk: Buffer) => parts.push(chunk));
          answer.on("end", () => {
            const send = () => {
              if (!res.destroyed) {
                res.writeHead(answer.statusCode ?? 502, answer.headers);
                res.end(Buffer.concat(parts));
              }
              hold?.done();
            };
            if (hold) setTimeout(send, hold.holdMs);
            else send();
          });
        },
      );
      upstream.on("error", () => req.socket.destroy());
      upstream.end(body);
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;

  return {
    url: `http://127.0.0.1:${port}`,
    holdNext(script, holdMs) {
      // EVALSHA names the script by its SHA-1; EVAL (after NOSCRIPT) carries its text, JSON-escaped.
      const marks = [createHash("sha1").update(script.text).digest("hex"), JSON.stringify(script.text).slice(1, 200)];
      return new Promise<void>((done) => (armed = { marks, holdMs, done }));
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
