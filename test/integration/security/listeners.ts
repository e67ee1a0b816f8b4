// Listeners for the security tests: a trap that counts every connection it
// gets (it must get none), a recorder that keeps each request's headers and
// answers 202, and raw HTTP requests with whatever Host or request line a
// hostile client sends.
import { createServer as createHttpServer, type IncomingHttpHeaders } from "node:http";
import { connect, createServer, type Server } from "node:net";

export interface Trap {
  port: number;
  connections(): number;
  close(): Promise<void>;
}

const listening = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)),
  );

/** A TCP listener that only counts connections. */
export async function startTrap(): Promise<Trap> {
  let count = 0;
  const server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  const port = await listening(server);
  return { port, connections: () => count, close: () => new Promise((r) => server.close(() => r())) };
}

export interface Recorder {
  url: string;
  requests: { method: string; url: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

/** An HTTP listener that records each request and answers 202. */
export async function startRecorder(): Promise<Recorder> {
  const requests: Recorder["requests"] = [];
  const server = createHttpServer((req, res) => {
    requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    req.resume();
    res.writeHead(202, { "content-type": "application/json" }).end('{"started":true}');
  });
  const port = await listening(server as unknown as Server);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Sends `head` (request line and headers, no trailing blank line) and `body` as bytes; resolves to the status. */
export function rawRequest(port: number, head: string, body = ""): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
    socket.write(`${head}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });
}
